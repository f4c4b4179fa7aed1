/* hetsched — internal: the one process-wide lock around every use of GLPK.
 *
 * GLPK is documented for one thread at a time, and the MILP oracle longjmps
 * out of it from its error hook; so whoever calls glp_* (the MILP in milp/,
 * the LP of the CoreTSAR splitter in mapper/split_coretsar.c) holds this
 * lock from the first glp_* call to the last.  Not recursive. */
#ifndef HS_MILP_GLPK_LOCK_H
#define HS_MILP_GLPK_LOCK_H

void hs__glpk_lock(void);
void hs__glpk_unlock(void);

#endif
