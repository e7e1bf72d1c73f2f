/* What nsysp_measure shares inside the library (the ranks' figures,
 * ranks.c, find steps as diff does). */
#ifndef NSYSP_ANALYSIS_MEASURE_H
#define NSYSP_ANALYSIS_MEASURE_H

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "nsys/nsys_db.h"

/* The SQL function nsysp_range_name(TEXT): a range's name as the summary
 * groups it (a PyTorch op range by its op, unless raw names are set). */
int measure_register_range_name(nsys_db *db, buf *err);

/* The report's step into m (step_name, step_rule, n_steps): the range
 * given, else found (nsysp_step_rule). Needs measure_register_range_name. */
int measure_steps(nsys_db *db, nsysp_measures *m, const char *given, buf *err);

#endif
