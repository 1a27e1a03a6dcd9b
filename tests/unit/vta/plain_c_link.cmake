# Compiles and runs a C program against the installed-style libraries with the plain command
# line a user would type: cc <sources> -I<headers> -L<libdir> -lvta_runtime -lvta_sim -lpthread.
set(include_flags)
foreach(dir ${INCLUDES})
  list(APPEND include_flags -I${dir})
endforeach()
execute_process(
  COMMAND ${CC} -std=c11 -O2 ${SOURCES} ${include_flags} -L${LIBDIR} -Wl,-rpath,${LIBDIR}
          -lvta_runtime -lvta_sim -lpthread -o ${OUTPUT}
  RESULT_VARIABLE compile_status)
if(NOT compile_status EQUAL 0)
  message(FATAL_ERROR "compiling with -lvta_runtime -lvta_sim -lpthread failed")
endif()
execute_process(COMMAND ${OUTPUT} RESULT_VARIABLE run_status)
if(NOT run_status EQUAL 0)
  message(FATAL_ERROR "the plainly linked program failed")
endif()
