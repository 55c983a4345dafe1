/*
 * The batch kernel: one thread per job (a grid-stride loop), verdict 1 or 0 per job.
 * NVRTC receives ecdsa_verify.cuh followed by this file; the host compiler includes it from
 * host.cpp, where the same loop with index 0 and stride 1 verifies a whole batch.
 */
#ifndef VSS_ECDSA_VERIFY_CUH
#include "ecdsa_verify.cuh"
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define VSS_FIRST_JOB (blockIdx.x * blockDim.x + threadIdx.x)
#define VSS_JOB_STRIDE (gridDim.x * blockDim.x)
/* Threads per block (the engine launches blocks of this size) and the blocks per
 * multiprocessor to make room for, which caps the registers per thread; the engine sets both. */
#ifndef VSS_BLOCK
#define VSS_BLOCK 128
#endif
#ifndef VSS_MIN_BLOCKS
#define VSS_MIN_BLOCKS 1
#endif
#define VSS_BOUNDS __launch_bounds__(VSS_BLOCK, VSS_MIN_BLOCKS)
#else
#define VSS_BOUNDS
#define VSS_FIRST_JOB 0u
#define VSS_JOB_STRIDE 1u
#endif

/*
 * curve: the curve's constants; table: VSS_G_TABLE_LEN multiples of G; in: count jobs laid
 * out as vss_verify_job reads them; verdicts: count bytes.
 */
VSS_KERNEL void VSS_BOUNDS vss_ecdsa_verify_batch(const vss_curve *curve, const vss_affine *table,
                                       const vss_u32 *in, unsigned char *verdicts,
                                       vss_u32 count) {
    for (vss_u32 i = VSS_FIRST_JOB; i < count; i += VSS_JOB_STRIDE) {
        verdicts[i] = (unsigned char)vss_verify_job(curve, table, in, i);
    }
}

/*
 * The same for prepared keys: key_tables holds key_count tables (VSS_G_TABLE_LEN points
 * each) and each job names its key's table (vss_verify_prepared_job).
 */
VSS_KERNEL void VSS_BOUNDS vss_ecdsa_verify_prepared_batch(const vss_curve *curve,
                                                const vss_affine *table,
                                                const vss_affine *key_tables,
                                                vss_u32 key_count, const vss_u32 *in,
                                                unsigned char *verdicts, vss_u32 count) {
    for (vss_u32 i = VSS_FIRST_JOB; i < count; i += VSS_JOB_STRIDE) {
        verdicts[i] = (unsigned char)vss_verify_prepared_job(curve, table, key_tables, key_count,
                                                             in, i);
    }
}
