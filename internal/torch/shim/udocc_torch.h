/* udocc_torch.h: the plain C ABI of udocc's libtorch shim.
 *
 * A group holds K independent MLP models of one architecture, trained in lockstep with
 * stacked weights (K x in x out) and batched matrix products; a single model is a group
 * of K = 1. Each member has its own initialisation seed, center c, radius R, BatchNorm
 * running statistics and Adam state. The host decides everything that is policy (which
 * rows each member trains on, in which order, which loss); the shim only runs the tensor
 * work of whole epochs.
 *
 * Every function that can fail returns NULL on success or an error: a message, whose
 * code (UDOCC_ERR_...) udocc_error_code reads and which the caller frees with
 * udocc_error_free. Every C++ exception, from the shim or from libtorch, becomes such an
 * error; none crosses this boundary. Host buffers are only read or written during the
 * call, but for the matrix of udocc_group_borrow_data.
 *
 * Concurrency: the calls that score matrices that are not a group's data
 * (udocc_group_distances_of, udocc_group_reconstruction_of, udocc_groups_score) only
 * read their groups, and may run at once on the same groups. Every other call on a group
 * needs the group to itself.
 *
 * Only these udocc_ functions are exported (the shim is built with -fvisibility=hidden):
 * no other symbol of the shim, no BLAS symbol, and nothing is done to the process at load
 * time (udocc_keep_freed_pages is the host's choice).
 *
 * Epoch plans: an epoch is S steps; at step s member k processes the rows
 * plan[(k*S + s)*P + 0 .. counts[k*S + s]) of the data, then (fine-tuning only) the
 * passengers counted by extra; the rest of the P slots hold the padding index n (row
 * indices are int32: a group has fewer than 2^31 rows). flags[k*S + s] is 1 when the
 * member trains at that step (a
 * gradient step and a BatchNorm running-statistics update) and 0 when the rows are only
 * scored in train mode. A member with counts 0 at a step sits it out entirely: neither
 * its weights nor its Adam moments move.
 */
#ifndef UDOCC_TORCH_H
#define UDOCC_TORCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

typedef struct udocc_group udocc_group;

/* Error codes, udocc_error_code's. */
enum {
  UDOCC_OK = 0,            /* no error (a NULL error) */
  UDOCC_ERR_FAILED = 1,    /* the call cannot be done: a bad argument, length or state */
  UDOCC_ERR_TORCH = 2,     /* libtorch raised an error (c10::Error) */
  UDOCC_ERR_NO_MEMORY = 3, /* an allocation failed */
  UDOCC_ERR_NO_TENSOR = 4, /* udocc_group_get_param: the group has no tensor of that name */
  UDOCC_ERR_UNKNOWN = 5,   /* an exception that is not a std::exception */
  UDOCC_ERR_NOT_LOADED = 6 /* never the shim's: a program that loads it at run time
                              (lazy_shimlib.c) could not load it, or it lacks the function */
};
/* udocc_error_code is the code of err, an error an entry point returned (UDOCC_OK for
 * NULL). */
int udocc_error_code(const char *err);
/* udocc_error_free frees err, an error an entry point returned (NULL: nothing). */
void udocc_error_free(char *err);
/* udocc_free frees a buffer the shim allocated for the caller (udocc_group_serialize's). */
void udocc_free(char *p);

/* udocc_keep_freed_pages sets glibc's malloc, for the whole process, to keep freed
 * pages rather than hand them back to the kernel (M_MMAP_THRESHOLD 32 MiB,
 * M_TRIM_THRESHOLD unlimited): an epoch frees and allocates the same large buffers
 * thousands of times, which otherwise fault their pages in again each time. It is the
 * host's choice (the udocc CLI makes it); the shim never applies it by itself. */
void udocc_keep_freed_pages(void);

/* Every call that fills (or reads) a caller's buffer of values takes its length, the
 * number of values it holds, after it, and fails without touching it unless the length
 * is the one the call writes or reads (the comments give it, K x n, ...). */

/* udocc_version writes the libtorch version ("1.13.0") into buf. */
void udocc_version(char *buf, size_t len);
/* udocc_cuda_compiled is 1 when the linked libtorch has CUDA support. */
int udocc_cuda_compiled(void);
/* udocc_cuda_device_count is the number of visible CUDA devices (0 without CUDA). */
int udocc_cuda_device_count(void);
/* udocc_check_device says whether device ("cpu", "cuda", "cuda:N") can be used here: NULL,
 * or why not, in the words every other entry point uses for it. */
char *udocc_check_device(const char *device);
/* udocc_set_num_threads sets the number of threads the CPU fast path's tasks run on (the
 * shim's own threads; n < 1: no change), for every group in the process; results do not
 * depend on it. libtorch's intra-op thread count is not touched: the shim's calls run on
 * threads whose OpenMP teams it holds to one thread. */
void udocc_set_num_threads(int n);

/* udocc_group_new makes K models with layer sizes sizes[0..nsizes) (input first), an
 * optional mirrored decoder, on device ("cpu", "cuda", "cuda:N"), member k initialised
 * from seeds[k]. */
char *udocc_group_new(const int64_t *sizes, int nsizes, int k, int with_decoder,
                      const char *device, const uint64_t *seeds, udocc_group **out);
/* udocc_group_from makes a group of k members whose member i copies the encoder
 * (weights, BatchNorm buffers), center and radius of src's member src_members[i]. */
char *udocc_group_from(const udocc_group *src, const int *src_members, int k,
                       udocc_group **out);
void udocc_group_close(udocc_group *g);

/* udocc_group_set_data copies the n x d row-major matrix x to the group's device once. */
char *udocc_group_set_data(udocc_group *g, const float *x, int64_t n, int64_t d);
/* udocc_group_set_data_scaled is set_data with column j standardised as it is copied,
 * as (double(x) - mean[j]) / scale[j] rounded to float: the caller's raw table is the
 * only other copy. */
char *udocc_group_set_data_scaled(udocc_group *g, const float *x, int64_t n, int64_t d,
                                  const double *mean, const double *scale);

/* udocc_group_borrow_data gives g the n rows rows[0..n) (rows NULL: all, n = nx) of the
 * caller's nx x d row-major matrix x, standardised by mean and scale as set_data_scaled
 * standardises (mean and scale NULL: as they are). On the CPU fast path the group keeps
 * x and reads it in place, standardising on every read, until drop_data or close (groups
 * derived from it share it: until the last of them drops it): the caller keeps x
 * unchanged and in place until then, and *borrowed is 1. On CUDA, in reference mode or
 * in a data-parallel rank the rows are copied as set_data_scaled copies them, x is not
 * kept and *borrowed is 0; a group that borrowed and is switched to the libtorch path
 * later copies the rows when that path first needs them. The row list, mean and scale
 * are copied either way. */
char *udocc_group_borrow_data(udocc_group *g, const float *x, int64_t nx, int64_t d,
                              const int32_t *rows, int64_t n, const double *mean,
                              const double *scale, int *borrowed);

/* udocc_group_drop_data frees the group's reference to its data (groups derived from it
 * share it: the memory goes when the last drops it); scoring the data fails after. */
char *udocc_group_drop_data(udocc_group *g);

/* udocc_group_reset_adam starts fresh Adam states (per member lr and L2 weight decay)
 * over the autoencoder's parameters (phase 0) or the encoder's (phase 1). */
char *udocc_group_reset_adam(udocc_group *g, int phase, const double *lr, const double *wd);

/* udocc_group_pretrain_epoch runs one autoencoder epoch (MSE over all features) of the
 * plan; loss[k] receives member k's mean minibatch loss. */
char *udocc_group_pretrain_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts,
                                 const uint8_t *flags, int64_t steps, int64_t width,
                                 double *loss, int64_t nloss);

/* udocc_group_init_center sets c to the mean eval-mode output over all rows, then pushes
 * components with 0 < |c_j| < eps to ±eps (Ruff's init_center_c). */
char *udocc_group_init_center(udocc_group *g, double eps);

/* udocc_group_train_epoch runs one fine-tuning epoch of the plan. soft[k] selects
 * member k's loss: 0 the one-class loss mean ||phi(x)-c||^2, 1 the soft-boundary loss
 * R^2 + (1/nu[k]) mean(max(0, ||phi(x)-c||^2 - R^2)). When update_r[k] is 1 the member's
 * R is set after each of its training steps to the (1-nu) quantile (linear) of the
 * square-rooted distances of that minibatch (Ruff's get_radius). loss[k] receives the
 * mean minibatch loss; train_dist, when not NULL, receives K x n train-mode distances of
 * every row the plan visits (rows it does not visit are left as they were). extra, when
 * not NULL, gives per step the passengers after the counted rows: rows normalised with
 * the minibatch's BatchNorm statistics, which they do not enter, and outside the loss. */
char *udocc_group_train_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts,
                              const int32_t *extra, const uint8_t *flags, int64_t steps,
                              int64_t width, const uint8_t *soft, const double *nu,
                              const uint8_t *update_r, double *loss, int64_t nloss,
                              float *train_dist, int64_t ndist);

/* udocc_group_distances writes the K x n eval-mode squared distances ||phi(x)-c||^2. */
char *udocc_group_distances(udocc_group *g, float *out, int64_t len);
/* udocc_group_set_labels sets the answers on the group's n data rows (1 normal, -1
 * anomaly, 0 unlabelled) that make later fine-tuning epochs' one-class loss Deep SAD's
 * (Ruff et al. 2020, Eq. (3)), the labelled rows' terms weighed eta > 0; n = 0 clears
 * them. Set the data first: labels of another row count are refused at the epoch. */
char *udocc_group_set_labels(udocc_group *g, const int8_t *labels, int64_t n, double eta);

/* udocc_group_distances_of scores an m x d matrix that is not the group's data. */
char *udocc_group_distances_of(udocc_group *g, const float *x, int64_t m, int64_t d,
                               float *out, int64_t len);
/* udocc_group_embeddings_of writes the K x m x rep eval-mode encoder outputs phi(x) of an
 * m x d matrix. */
char *udocc_group_embeddings_of(udocc_group *g, const float *x, int64_t m, int64_t d,
                                float *out, int64_t len);
/* udocc_group_standardise_output moves member k's center to center[k * rep ..] (NULL:
 * keeps it) and divides coordinate j of its representation by s[k * rep + j] (finite,
 * > 0): column j of the last encoder layer and the center's coordinate j, so that the
 * distances become sum_j ((phi_j(x) - center_j) / s_j)^2. */
char *udocc_group_standardise_output(udocc_group *g, const float *center, const float *s);

/* udocc_group_residuals_of writes the K x m x d eval-mode autoencoder residuals
 * x - dec(enc(x)) of an m x d matrix (the group needs its decoder). */
char *udocc_group_residuals_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out,
                               int64_t len);
/* udocc_group_set_reconstruction_scale makes member k's reconstruction error the robust
 * (1/d) sum_j log(1 + ((e_j - center[k*d+j]) / scale[k*d+j])^2) of its residuals
 * e = x - dec(enc(x)) instead of ||e||^2 / d: center finite, scale finite and > 0, K x d
 * each. Both NULL restores the squared error. A saved member keeps it. */
char *udocc_group_set_reconstruction_scale(udocc_group *g, const float *center, const float *scale);

/* udocc_group_reconstruction writes the K x n eval-mode autoencoder reconstruction errors
 * ||x - dec(enc(x))||^2 / d of the group's rows, or the robust error that
 * udocc_group_set_reconstruction_scale set (the group needs its decoder);
 * udocc_group_reconstruction_of does the same for an m x d matrix that is not its data. */
char *udocc_group_reconstruction(udocc_group *g, float *out, int64_t len);
/* udocc_group_reconstruction_member writes member k's n errors (row k of
 * udocc_group_reconstruction's) into out: on the CPU's fast path computing that member's
 * only, so that a caller need not hold K x n of them at once; on the libtorch path it
 * computes every member's, as udocc_group_reconstruction does, and keeps k's. */
char *udocc_group_reconstruction_member(udocc_group *g, int k, float *out, int64_t len);
char *udocc_group_reconstruction_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out,
                                    int64_t len);
/* udocc_groups_score scores the m x d rows x with several groups in one call: the
 * distances of each of the nd groups dist[i] (udocc_group_distances_of's), K_i x m each,
 * one after the other into dist_out, and the reconstruction errors of each of the nr
 * groups rec[i] (udocc_group_reconstruction_of's) into rec_out likewise. One hop to the
 * shim's threads for all of them: a model's members scored one call a group paid ten
 * hops a request. */
char *udocc_groups_score(udocc_group *const *dist, int64_t nd, udocc_group *const *rec, int64_t nr,
                         const float *x, int64_t m, int64_t d, float *dist_out, float *rec_out);
/* udocc_group_attributions_of writes into out (len floats, which must be K x m x d) each
 * member's attribution of its score of every row of the m x d matrix x to the row's
 * features, against the baseline row b (d floats, finite), member after member, m x d
 * each. part 0 attributes the squared distance D(x) = ||phi(x) - c||^2 by the path
 * integral of its gradient: a_j = (x_j - b_j) * mean over s of dD/dx_j at
 * b + alphas[s] * (x - b) (steps values, each in [0, 1]): integrated gradients with the
 * caller's quadrature points, or gradient x input with alphas {1} and b = 0. part 1
 * attributes the reconstruction error (the group needs its decoder) exactly: a_j is
 * feature j's term of the error at x less its term at b, (1/d) log(1 + ((e_j - rc_j) /
 * rs_j)^2) for the robust error (udocc_group_set_reconstruction_scale), e_j^2 / d for the
 * squared one, so that sum_j a_j is the error of x less that of b. Parts 2 (the distance)
 * and 3 (the reconstruction error) attribute by occlusion: a_j is the score of x less
 * the score of x with feature j set to b_j (alphas unused). */
char *udocc_group_attributions_of(udocc_group *g, const float *x, int64_t m, int64_t d,
                                  const float *b, const float *alphas, int64_t steps, int part,
                                  float *out, int64_t len);
char *udocc_group_get_center(const udocc_group *g, float *out, int64_t len); /* K x rep */
char *udocc_group_get_radius(const udocc_group *g, float *out, int64_t len); /* K */
char *udocc_group_set_radius(udocc_group *g, const float *r, int64_t len);   /* K */
/* udocc_group_get_param copies the named tensor of member k ("enc.0.weight" as in_x_out,
 * "enc.0.running_mean", "center", ...) into out (len floats); n_out gets its size. */
char *udocc_group_get_param(const udocc_group *g, int k, const char *name, float *out,
                            int64_t len, int64_t *n_out);

/* udocc_group_serialize puts member k's whole state (encoder, decoder if any, BatchNorm
 * buffers, center, radius, sizes) into *out, len bytes allocated with malloc, which the
 * caller frees with udocc_free: the host writes the file, so that a failed write (a full
 * disk) is the host's error. udocc_group_load reads such bytes (len of them at data;
 * path names them in errors) into a new group of one member on device. */
char *udocc_group_serialize(const udocc_group *g, int k, char **out, int64_t *len);
char *udocc_group_load(const char *data, int64_t len, const char *path, const char *device,
                       udocc_group **out);
/* udocc_group_extract makes a group of one member on g's device holding member k's whole
 * state, as udocc_group_load would read it from the bytes udocc_group_serialize gives,
 * without the file; it shares nothing with g. */
char *udocc_group_extract(const udocc_group *g, int k, udocc_group **out);

/* Data-parallel runs (udocc_dist.cpp). udocc_dist_new joins a run of world ranks as rank
 * through a c10d TCPStore at addr:port (rank 0 serves it) and makes its process group:
 * Gloo for device "cpu", NCCL for "cuda..." (only in a shim built against a CUDA
 * libtorch). timeout_ms bounds the rendezvous and every collective: a peer that died or
 * hangs makes the call fail with an error within it. */
typedef struct udocc_dist udocc_dist;
/* udocc_dist_gloo_compiled is 1 when the shim was built with Gloo's headers, so CPU ranks
   can form a process group. */
int udocc_dist_gloo_compiled(void);
char *udocc_dist_new(const char *addr, int port, int rank, int world, const char *device,
                     int64_t timeout_ms, udocc_dist **out);
/* udocc_dist_close lets go of the caller's handle; the process group lives on while a
 * group made a rank of it (udocc_group_set_dist, or derived from one) does. */
void udocc_dist_close(udocc_dist *d);
/* udocc_dist_allreduce replaces buf[0..n) by its sum over the ranks. */
char *udocc_dist_allreduce(udocc_dist *d, double *buf, int64_t n);
/* udocc_dist_allgather concatenates every rank's in (counts[r] floats from rank r) into
 * out, rank after rank, on every rank. */
char *udocc_dist_allgather(udocc_dist *d, const float *in, const int64_t *counts, float *out,
                           int64_t len);
/* udocc_dist_barrier returns when every rank has called it. */
char *udocc_dist_barrier(udocc_dist *d);
/* udocc_group_set_dist makes g a rank of d's run: g takes rank 0's state now, then
 * averages its gradients before every Adam step, its radii after every update and its
 * BatchNorm running statistics after every epoch over the ranks; its center becomes the
 * mean over every rank's rows. g, and every group derived from it, holds d's process
 * group while it lives (udocc_dist_close). */
char *udocc_group_set_dist(udocc_group *g, udocc_dist *d);
/* udocc_group_set_reference selects, on the CPU, the libtorch path (on = 1: autograd over
 * the stacked tensor ops) or the fast path (on = 0: the step written out by hand over
 * preallocated buffers, the default). Both compute the same numbers to float rounding;
 * the libtorch path is the reference the fast one is tested against, and the only one on
 * CUDA. A new group takes the libtorch path when the environment has UDOCC_REFERENCE=1;
 * a derived group takes its source's. */
void udocc_group_set_reference(udocc_group *g, int on);

/* udocc_group_info reports K, the number of layer sizes and the sizes (up to cap). */
void udocc_group_info(const udocc_group *g, int *k, int *nsizes, int64_t *sizes, int cap);

/* udocc_gram writes the r x r matrix x·xᵀ of the r x c row-major matrix x into out (r x r,
 * row-major): single-precision products over blocks of columns, their sums added in
 * double precision in the columns' order; the upper triangle is computed and the lower
 * is its mirror (out is symmetric); the same bits at any thread count. */
char *udocc_gram(const float *x, int64_t r, int64_t c, double *out, int64_t len);
/* udocc_rows_product writes out (n x q) = x · op(b) for the n x k row-major matrix x and
 * b, q x k with op(b) = bᵀ when tb is 1, k x q with op(b) = b when tb is 0: single
 * precision, in blocks of a fixed number of rows of x (4), the last made whole with zero
 * rows, so that a row's values are a function of the row and b alone, the same bits
 * whichever rows, and how many, a call holds, at any thread count. */
char *udocc_rows_product(const float *x, int64_t n, int64_t k, const float *b, int64_t q, int tb,
                         float *out, int64_t len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
