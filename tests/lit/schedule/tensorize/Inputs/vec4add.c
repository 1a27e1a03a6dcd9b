/* TVM test_tir_schedule_tensorize.py's vec4add in C: c[co] += a[ao + k] * b[bo + k] for k in
 * 0..3, in order, so each sum sees its products in the order the unscheduled loop adds them
 * (build with -ffp-contract=off, so that no fused multiply-add rounds differently). */
int vec4add(float *c, int co, const float *a, int ao, const float *b, int bo) {
  for (int k = 0; k < 4; ++k) c[co] += a[ao + k] * b[bo + k];
  return 0;
}
