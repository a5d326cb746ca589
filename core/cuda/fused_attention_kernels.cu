// PosLab's CUDA fused causal attention (fused_attention_kernels.h states the formulas).
//
// Layout: one thread block per (query or key tile, batch * head), one thread per row of the tile.
// Rows a thread reads with its own index (its query or key row, its accumulators) are stored with
// a stride of width + 1 in shared memory, so that the threads of a warp hit different banks; the
// other tile's rows are read by every thread at once (a broadcast) and keep their width.
// Accumulation is in the input type (float32 training, float64 for the tests' tight tolerance).
#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cuda/fused_attention_kernels.h"

namespace poslab::cuda {

namespace {

// Shared memory each kernel may use without opting in to more (every architecture since 7.0).
constexpr int64_t kSharedBytes = 48 * 1024;

__device__ inline float deviceExp(float x) {
  return expf(x);  // not __expf: its fast path is not accurate enough for the 1e-5 comparison
}
__device__ inline double deviceExp(double x) {
  return exp(x);
}
__device__ inline float deviceLog(float x) {
  return logf(x);
}
__device__ inline double deviceLog(double x) {
  return log(x);
}

// Shared-memory elements of each kernel at tile edge t.
int64_t forwardElements(const AttentionShape& s, int64_t t) {
  return t * (s.features + 1) + t * s.features + t * s.headSize + t * (s.headSize + 1);
}
int64_t queryBackwardElements(const AttentionShape& s, int64_t t) {
  return 2 * t * (s.features + 1) + t * (s.headSize + 1) + t * s.features + t * s.headSize + 2 * t;
}
int64_t keyBackwardElements(const AttentionShape& s, int64_t t) {
  return 2 * t * (s.features + 1) + 2 * t * (s.headSize + 1) + t * s.features + t * s.headSize +
         2 * t;
}

// Copies rows [r0, r0 + tile) of a (T, width) matrix into shared memory with row stride
// `stride`, zeros past T. All threads of the block take part.
template <typename Scalar>
__device__ void loadRows(Scalar* dst, const Scalar* src, int64_t r0, int64_t T, int64_t width,
                         int64_t stride, int tile) {
  for (int64_t idx = threadIdx.x; idx < tile * width; idx += blockDim.x) {
    const int64_t r = idx / width, c = idx % width;
    dst[r * stride + c] = r0 + r < T ? src[(r0 + r) * width + c] : Scalar(0);
  }
}

template <typename Scalar>
__device__ inline Scalar dot(const Scalar* x, const Scalar* y, int64_t n) {
  Scalar acc = 0;
  for (int64_t c = 0; c < n; ++c) acc += x[c] * y[c];
  return acc;
}

// Forward: block (query tile, b * H + h), thread r: query row i = q0 + r.
template <typename Scalar, int Tile>
__global__ void forwardKernel(AttentionShape s, const Scalar* a, const Scalar* b, const Scalar* v,
                              const Scalar* lag, Scalar* out, Scalar* lse) {
  extern __shared__ __align__(16) unsigned char sharedRaw[];
  const int64_t F = s.features, hs = s.headSize, T = s.length;
  const int64_t fS = F + 1, hS = hs + 1;
  Scalar* sQ = reinterpret_cast<Scalar*>(sharedRaw);  // (Tile, F + 1): own rows
  Scalar* sK = sQ + Tile * fS;                        // (Tile, F)
  Scalar* sV = sK + Tile * F;                         // (Tile, hs)
  Scalar* sAcc = sV + Tile * hs;                      // (Tile, hs + 1): own rows
  const int64_t bh = blockIdx.y, h = bh % s.heads;
  const int64_t q0 = static_cast<int64_t>(blockIdx.x) * Tile;
  const int r = threadIdx.x;
  const int64_t i = q0 + r;
  const Scalar* A = a + bh * T * F;
  const Scalar* Bm = b + bh * T * F;
  const Scalar* V = v + bh * T * hs;
  loadRows(sQ, A, q0, T, F, fS, Tile);
  for (int64_t d = 0; d < hs; ++d) sAcc[r * hS + d] = 0;
  Scalar m = -INFINITY, l = 0;
  const int64_t qEnd = q0 + Tile < T ? q0 + Tile : T;
  for (int64_t k0 = 0; k0 < qEnd; k0 += Tile) {
    __syncthreads();
    loadRows(sK, Bm, k0, T, F, F, Tile);
    loadRows(sV, V, k0, T, hs, hs, Tile);
    __syncthreads();
    if (i >= T) continue;
    Scalar sc[Tile];
    Scalar tileMax = -INFINITY;
    for (int c = 0; c < Tile; ++c) {
      const int64_t j = k0 + c;
      Scalar x = -INFINITY;
      if (j <= i) {
        x = dot(sQ + r * fS, sK + c * F, F);
        if (lag) x += lag[h * T + (i - j)];
      }
      sc[c] = x;
      tileMax = x > tileMax ? x : tileMax;
    }
    // Every tile here starts at or before row i's own position, so key k0 <= i is in it and
    // tileMax is finite.
    const Scalar mNew = m > tileMax ? m : tileMax;
    const Scalar corr = deviceExp(m - mNew);  // m = -inf at the first tile: 0
    l *= corr;
    for (int64_t d = 0; d < hs; ++d) sAcc[r * hS + d] *= corr;
    for (int c = 0; c < Tile; ++c) {
      if (k0 + c > i) break;
      const Scalar p = deviceExp(sc[c] - mNew);
      l += p;
      for (int64_t d = 0; d < hs; ++d) sAcc[r * hS + d] += p * sV[c * hs + d];
    }
    m = mNew;
  }
  if (i < T) {
    for (int64_t d = 0; d < hs; ++d) out[(bh * T + i) * hs + d] = sAcc[r * hS + d] / l;
    lse[bh * T + i] = m + deviceLog(l);
  }
}

// Backward of the query side: block (query tile, b * H + h), thread r: query row i. Writes dA and
// adds the lag gradient (lags of one tile pair gathered in shared memory, then one atomic add
// per lag).
template <typename Scalar, int Tile>
__global__ void queryBackwardKernel(AttentionShape s, const Scalar* a, const Scalar* b,
                                    const Scalar* v, const Scalar* lag, const Scalar* lse,
                                    const Scalar* rowDot, const Scalar* dOut, Scalar* dA,
                                    Scalar* dLag) {
  extern __shared__ __align__(16) unsigned char sharedRaw[];
  const int64_t F = s.features, hs = s.headSize, T = s.length;
  const int64_t fS = F + 1, hS = hs + 1;
  Scalar* sQ = reinterpret_cast<Scalar*>(sharedRaw);  // (Tile, F + 1)
  Scalar* sdA = sQ + Tile * fS;                       // (Tile, F + 1)
  Scalar* sdO = sdA + Tile * fS;                      // (Tile, hs + 1)
  Scalar* sK = sdO + Tile * hS;                       // (Tile, F)
  Scalar* sV = sK + Tile * F;                         // (Tile, hs)
  Scalar* sLag = sV + Tile * hs;                      // (2 Tile): lag (q0 - k0) + r - c
  const int64_t bh = blockIdx.y, h = bh % s.heads;
  const int64_t q0 = static_cast<int64_t>(blockIdx.x) * Tile;
  const int r = threadIdx.x;
  const int64_t i = q0 + r;
  const Scalar* Bm = b + bh * T * F;
  const Scalar* V = v + bh * T * hs;
  loadRows(sQ, a + bh * T * F, q0, T, F, fS, Tile);
  loadRows(sdO, dOut + bh * T * hs, q0, T, hs, hS, Tile);
  for (int64_t c = 0; c < F; ++c) sdA[r * fS + c] = 0;
  const Scalar rowLse = i < T ? lse[bh * T + i] : Scalar(0);
  const Scalar rowD = i < T ? rowDot[bh * T + i] : Scalar(0);
  const int64_t qEnd = q0 + Tile < T ? q0 + Tile : T;
  for (int64_t k0 = 0; k0 < qEnd; k0 += Tile) {
    __syncthreads();
    loadRows(sK, Bm, k0, T, F, F, Tile);
    loadRows(sV, V, k0, T, hs, hs, Tile);
    for (int idx = threadIdx.x; idx < 2 * Tile; idx += blockDim.x) sLag[idx] = 0;
    __syncthreads();
    if (i < T) {
      for (int c = 0; c < Tile; ++c) {
        const int64_t j = k0 + c;
        if (j > i) break;
        Scalar x = dot(sQ + r * fS, sK + c * F, F);
        if (lag) x += lag[h * T + (i - j)];
        const Scalar p = deviceExp(x - rowLse);
        const Scalar dp = dot(sdO + r * hS, sV + c * hs, hs);
        const Scalar ds = p * (dp - rowD);
        for (int64_t f = 0; f < F; ++f) sdA[r * fS + f] += ds * sK[c * F + f];
        if (dLag) atomicAdd(&sLag[r - c + Tile - 1], ds);
      }
    }
    __syncthreads();
    if (dLag) {
      for (int idx = threadIdx.x; idx < 2 * Tile - 1; idx += blockDim.x) {
        const int64_t d = (q0 - k0) + idx - (Tile - 1);
        if (d >= 0 && d < T && sLag[idx] != Scalar(0)) atomicAdd(&dLag[h * T + d], sLag[idx]);
      }
    }
  }
  if (i < T)
    for (int64_t f = 0; f < F; ++f) dA[(bh * T + i) * F + f] = sdA[r * fS + f];
}

// Backward of the key side: block (key tile, b * H + h), thread r: key row j = k0 + r. Writes dB
// and dV from the query tiles at or after the key tile.
template <typename Scalar, int Tile>
__global__ void keyBackwardKernel(AttentionShape s, const Scalar* a, const Scalar* b,
                                  const Scalar* v, const Scalar* lag, const Scalar* lse,
                                  const Scalar* rowDot, const Scalar* dOut, Scalar* dB,
                                  Scalar* dV) {
  extern __shared__ __align__(16) unsigned char sharedRaw[];
  const int64_t F = s.features, hs = s.headSize, T = s.length;
  const int64_t fS = F + 1, hS = hs + 1;
  Scalar* sK = reinterpret_cast<Scalar*>(sharedRaw);  // (Tile, F + 1): own key rows
  Scalar* sdB = sK + Tile * fS;                       // (Tile, F + 1)
  Scalar* sV = sdB + Tile * fS;                       // (Tile, hs + 1): own value rows
  Scalar* sdV = sV + Tile * hS;                       // (Tile, hs + 1)
  Scalar* sQ = sdV + Tile * hS;                       // (Tile, F)
  Scalar* sdO = sQ + Tile * F;                        // (Tile, hs)
  Scalar* sLse = sdO + Tile * hs;                     // (Tile)
  Scalar* sD = sLse + Tile;                           // (Tile)
  const int64_t bh = blockIdx.y, h = bh % s.heads;
  const int64_t k0 = static_cast<int64_t>(blockIdx.x) * Tile;
  const int r = threadIdx.x;
  const int64_t j = k0 + r;
  const Scalar* A = a + bh * T * F;
  const Scalar* dO = dOut + bh * T * hs;
  loadRows(sK, b + bh * T * F, k0, T, F, fS, Tile);
  loadRows(sV, v + bh * T * hs, k0, T, hs, hS, Tile);
  for (int64_t c = 0; c < F; ++c) sdB[r * fS + c] = 0;
  for (int64_t d = 0; d < hs; ++d) sdV[r * hS + d] = 0;
  for (int64_t q0 = k0; q0 < T; q0 += Tile) {
    __syncthreads();
    loadRows(sQ, A, q0, T, F, F, Tile);
    loadRows(sdO, dO, q0, T, hs, hs, Tile);
    for (int idx = threadIdx.x; idx < Tile; idx += blockDim.x) {
      sLse[idx] = q0 + idx < T ? lse[bh * T + q0 + idx] : Scalar(0);
      sD[idx] = q0 + idx < T ? rowDot[bh * T + q0 + idx] : Scalar(0);
    }
    __syncthreads();
    if (j >= T) continue;
    for (int rr = 0; rr < Tile; ++rr) {
      const int64_t i = q0 + rr;
      if (i >= T) break;
      if (i < j) continue;
      Scalar x = dot(sK + r * fS, sQ + rr * F, F);
      if (lag) x += lag[h * T + (i - j)];
      const Scalar p = deviceExp(x - sLse[rr]);
      const Scalar dp = dot(sV + r * hS, sdO + rr * hs, hs);
      const Scalar ds = p * (dp - sD[rr]);
      for (int64_t d = 0; d < hs; ++d) sdV[r * hS + d] += p * sdO[rr * hs + d];
      for (int64_t f = 0; f < F; ++f) sdB[r * fS + f] += ds * sQ[rr * F + f];
    }
  }
  if (j < T) {
    for (int64_t f = 0; f < F; ++f) dB[(bh * T + j) * F + f] = sdB[r * fS + f];
    for (int64_t d = 0; d < hs; ++d) dV[(bh * T + j) * hs + d] = sdV[r * hS + d];
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA fused attention: ") + what + ": " +
                             cudaGetErrorString(e));
}

dim3 gridFor(const AttentionShape& s, int tile) {
  const int64_t tiles = (s.length + tile - 1) / tile, bh = s.batch * s.heads;
  if (bh > 65535 || tiles > INT32_MAX)
    throw std::runtime_error("CUDA fused attention: batch * heads must be at most 65535");
  return dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(bh));
}

template <typename Scalar, int Tile>
void forwardAt(const AttentionShape& s, const Scalar* a, const Scalar* b, const Scalar* v,
               const Scalar* lag, Scalar* out, Scalar* lse, cudaStream_t stream) {
  const size_t bytes = forwardElements(s, Tile) * sizeof(Scalar);
  forwardKernel<Scalar, Tile><<<gridFor(s, Tile), Tile, bytes, stream>>>(s, a, b, v, lag, out, lse);
  check(cudaGetLastError(), "forward launch");
}

template <typename Scalar, int Tile>
void backwardAt(const AttentionShape& s, const Scalar* a, const Scalar* b, const Scalar* v,
                const Scalar* lag, const Scalar* lse, const Scalar* rowDot, const Scalar* dOut,
                Scalar* dA, Scalar* dB, Scalar* dV, Scalar* dLag, cudaStream_t stream) {
  const dim3 grid = gridFor(s, Tile);
  queryBackwardKernel<Scalar, Tile>
      <<<grid, Tile, queryBackwardElements(s, Tile) * sizeof(Scalar), stream>>>(
          s, a, b, v, lag, lse, rowDot, dOut, dA, lag ? dLag : nullptr);
  check(cudaGetLastError(), "query backward launch");
  keyBackwardKernel<Scalar, Tile>
      <<<grid, Tile, keyBackwardElements(s, Tile) * sizeof(Scalar), stream>>>(s, a, b, v, lag, lse,
                                                                              rowDot, dOut, dB, dV);
  check(cudaGetLastError(), "key backward launch");
}

}  // namespace

int fusedAttentionTile(const AttentionShape& shape, int elementBytes) {
  for (int t : {32, 16, 8}) {
    const int64_t most =
        std::max(forwardElements(shape, t),
                 std::max(queryBackwardElements(shape, t), keyBackwardElements(shape, t)));
    if (most * elementBytes <= kSharedBytes) return t;
  }
  return 0;
}

template <typename Scalar>
void fusedAttentionForward(const AttentionShape& s, int tile, const Scalar* a, const Scalar* b,
                           const Scalar* v, const Scalar* lag, Scalar* out, Scalar* lse,
                           cudaStream_t stream) {
  if (s.length == 0 || s.batch * s.heads == 0) return;
  switch (tile) {
    case 32:
      return forwardAt<Scalar, 32>(s, a, b, v, lag, out, lse, stream);
    case 16:
      return forwardAt<Scalar, 16>(s, a, b, v, lag, out, lse, stream);
    case 8:
      return forwardAt<Scalar, 8>(s, a, b, v, lag, out, lse, stream);
    default:
      throw std::runtime_error("CUDA fused attention: tile must be 32, 16 or 8");
  }
}

template <typename Scalar>
void fusedAttentionBackward(const AttentionShape& s, int tile, const Scalar* a, const Scalar* b,
                            const Scalar* v, const Scalar* lag, const Scalar* lse,
                            const Scalar* rowDot, const Scalar* dOut, Scalar* dA, Scalar* dB,
                            Scalar* dV, Scalar* dLag, cudaStream_t stream) {
  if (s.length == 0 || s.batch * s.heads == 0) return;
  switch (tile) {
    case 32:
      return backwardAt<Scalar, 32>(s, a, b, v, lag, lse, rowDot, dOut, dA, dB, dV, dLag, stream);
    case 16:
      return backwardAt<Scalar, 16>(s, a, b, v, lag, lse, rowDot, dOut, dA, dB, dV, dLag, stream);
    case 8:
      return backwardAt<Scalar, 8>(s, a, b, v, lag, lse, rowDot, dOut, dA, dB, dV, dLag, stream);
    default:
      throw std::runtime_error("CUDA fused attention: tile must be 32, 16 or 8");
  }
}

template void fusedAttentionForward<float>(const AttentionShape&, int, const float*, const float*,
                                           const float*, const float*, float*, float*,
                                           cudaStream_t);
template void fusedAttentionForward<double>(const AttentionShape&, int, const double*,
                                            const double*, const double*, const double*, double*,
                                            double*, cudaStream_t);
template void fusedAttentionBackward<float>(const AttentionShape&, int, const float*, const float*,
                                            const float*, const float*, const float*, const float*,
                                            const float*, float*, float*, float*, float*,
                                            cudaStream_t);
template void fusedAttentionBackward<double>(const AttentionShape&, int, const double*,
                                             const double*, const double*, const double*,
                                             const double*, const double*, const double*, double*,
                                             double*, double*, double*, cudaStream_t);

}  // namespace poslab::cuda
