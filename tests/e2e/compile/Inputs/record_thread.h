/* The extern function parallel_matmul.tvm calls (compiled C includes this with -include). */
#include <stdint.h>
int32_t record_thread(int32_t row);
