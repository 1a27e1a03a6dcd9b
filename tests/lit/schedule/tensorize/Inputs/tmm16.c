/* The MLC course's tmm16 micro-kernel in C: C[16x16] += A[16x16] * B[16x16]^T, rows of A, B and C
 * sa, sb and sc elements apart. k runs innermost in order, so each C element sees its products
 * in the order the unscheduled matmul adds them, and results agree bit for bit (build with
 * -ffp-contract=off, so that no fused multiply-add rounds differently). */
int tmm16(float *c, const float *a, const float *b, int sa, int sb, int sc) {
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 16; ++k) c[i * sc + j] += a[i * sa + k] * b[j * sb + k];
  return 0;
}
