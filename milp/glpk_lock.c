/* hetsched — the process-wide GLPK lock (milp/glpk_lock.h). */
#include <pthread.h>

#include "milp/glpk_lock.h"

static pthread_mutex_t glpk_mutex = PTHREAD_MUTEX_INITIALIZER;

void hs__glpk_lock(void)
{
    pthread_mutex_lock(&glpk_mutex);
}

void hs__glpk_unlock(void)
{
    pthread_mutex_unlock(&glpk_mutex);
}
