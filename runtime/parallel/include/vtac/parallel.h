/*
 * vtac thread pool: how compiled code runs a `parallel` loop (the role of TVM's
 * TVMBackendParallelLaunch, with a simpler ABI).
 *
 * The code generators outline the body of each outermost parallel loop into a task function
 * that runs the iterations [begin, end) and returns 0 or a non-zero status; the loop itself
 * becomes one call of vtac_parallel_for. The pool splits [0, extent) into one consecutive
 * range per thread (at most `extent` ranges), runs range 0 on the calling thread and range i on
 * worker i, waits for all of them and returns the status of the first range (in loop order)
 * that failed, else 0. Ranges are assigned the same way on every call, so a run is as
 * reproducible as the task's own arithmetic.
 *
 * Threads: VTAC_NUM_THREADS from the environment when it is a positive number (read once, at
 * the first call), else the number of hardware threads. A call made from inside a task, or
 * while another thread's call is running, runs its whole range on the calling thread: one level
 * of parallelism, never a deadlock. Plain C ABI; knows nothing of the IR.
 */
#ifndef VTAC_PARALLEL_H_
#define VTAC_PARALLEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the iterations [begin, end) of a parallel loop; 0 on success, else a status. */
typedef int32_t (*vtac_parallel_task)(int64_t begin, int64_t end, void *closure);

int32_t vtac_parallel_for(int64_t extent, vtac_parallel_task task, void *closure);

/* The number of threads a call of vtac_parallel_for may use (the caller included). */
int32_t vtac_parallel_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* VTAC_PARALLEL_H_ */
