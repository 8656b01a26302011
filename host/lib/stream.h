/* The streamed problem shared by stream.c (what goes where: one launch,
 * in place, or slabs) and slab_pipe.c (the slabs' pipeline). Private to
 * host/lib. */
#ifndef CLCONV_LIB_STREAM_H
#define CLCONV_LIB_STREAM_H

#include "internal.h"

/* One streamed problem: rows are the slowest axis' index. */
typedef struct clc_job {
    clconv_session *s;
    clconv_problem p;
    const char *in; /* p.in_dtype's elements of isz bytes */
    const float *mask;
    char *out; /* p.out_dtype's elements of osz bytes */
    size_t isz, osz;
    int axis;          /* the slowest axis */
    size_t rows;       /* its extent */
    size_t row;        /* elements per row (product of the faster axes) */
    size_t lo, hi;     /* halo rows before and after */
    int host_ptr;      /* bind the caller's input in place (CPU devices) */
    int staged;        /* else through pinned staging (GPUs) */
    /* Slabs at the axis' ends take their halo rows from the whole axis'
     * fold (wrap; reflect and mirror on slabs no thicker than the halo),
     * gathered on the host: a slab's own fold would read other rows. */
    int gather_edges;
    /* The axis' ends are in slabs of their own (rows in parts reaching
     * them): a slab there shorter than a fold needs (the balanced
     * division's last, one cut to place the launches) gathers too. */
    int ends_in_parts;
    /* Where the rows are in the whole problem (clconv_part): row 0 is the
     * whole's row `origin` (0 when p is the whole). Each slab's launch
     * starts a multiple of `split` rows into the whole (1: anywhere), the
     * rows where the kernel splits sums (clc_config_split_rows), reading
     * rows before its reach for that, or zeros before the job's first. */
    long long origin;
    size_t split;
} clc_job;

/* Can a slab of rows_per_slab output rows fold the slowest axis' ends
 * itself (stream.c)? */
int clc_slabs_fold(const clc_job *j, size_t rows_per_slab);
/* slab_pipe.c: output rows [begin, end) of j in slabs of `rows` output
 * rows (the last may be shorter), each with its halo, through two slots
 * of device buffers on three queues (uploads, kernels, downloads), staged
 * through pinned chunks where j->staged; *nslabs (may be NULL) gets how
 * many ran. Returns once nothing is in flight. */
clconv_status clc_pipe_rows(clc_job *j, size_t begin, size_t end, size_t rows,
                            size_t *nslabs);
/* The slab buffers a session keeps between calls (session.c frees them at
 * its end). */
void clc_slab_buffers_free(clconv_session *s);

#endif
