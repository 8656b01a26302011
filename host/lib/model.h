/* Shared by model.c and model_interior.c (internal, like internal.h). */
#ifndef CLCONV_LIB_MODEL_H
#define CLCONV_LIB_MODEL_H

#include "clconv_model.h"

/* The counts of an interior tile (no ghost cells); CLCONV_EINVAL for a
 * bad case or counts that overflow 64 bits. */
clconv_status clc_model_interior_counts(const clconv_problem *p,
                                        clconv_model_counts *out);

#endif
