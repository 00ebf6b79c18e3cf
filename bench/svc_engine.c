/* svc_engine.c -- svcbench.c without its main(), for twbench's service
 * workload (svcbench.h). */
#define TWSVC_NO_MAIN
#include "svcbench.c"
