/*
 * Seed 001's conv2d (ResNet-18 layer 9: 1x256x14x14 input, 256 3x3 kernels, pad 1, stride 1,
 * shift right 8, clip to [0, 127]) as the C code TVM's code generator emits for the fully
 * lowered program printed in the seed: runtime API calls, static micro-kernel handles and
 * micro-kernel closures that capture the virtual-thread variable.
 */
#ifndef VTA_SEED_CONV2D_H_
#define VTA_SEED_CONV2D_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Layouts (int8): data (1,16,14,14,1,16), kernel (16,16,3,3,16,16), res (1,16,14,14,1,16).
 * The three arguments are VTA buffer handles (VTABufferAlloc). Returns 0, or -1 if the
 * runtime rejected a micro-kernel. */
int vta_seed_conv2d(void* data, void* kernel, void* res);

#ifdef __cplusplus
}
#endif

#endif /* VTA_SEED_CONV2D_H_ */
