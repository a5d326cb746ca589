// The one seam between position encodings and attention.
//
// Conventions (docs/MATH.md 0): query position i, key position j, lag d = i - j >= 0, head
// dimension D. The logit is l(i,j) = scoreScale * s(i,j) + b(i,j): a content-position score s plus
// an additive bias b. Attention code sees only this interface; each family lives in its own file.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "encodings/lag_basis.h"
#include "encodings/params.h"
#include "encodings/trainable.h"

namespace poslab {

// The family's parameters that the PJ reference's Phase C switches set (ModelConfig's
// pj_sectors, pj_gate_init and pj_order_init; docs/MATH.md 2.3.1): train/pj_sector_init.h writes
// them by these names, so core/train names no family.
struct SectorParams {
  std::array<std::string, 3> gates;  // the FJ, affine and LC gates: {"g_fj", "g_aff", "g_lc"}
  std::string order;                 // the highest jet order R, 0 for the GRAPE-M controls: "order"
  std::string orderPeak;             // the order the initial order weights favour: "alpha_peak"
  std::string noSectorFamily;        // the family a run with sector set "none" becomes: "nope"
};

struct FamilyInfo {
  std::string id;       // "jordan-exact"
  std::string title;    // "Jordan-RoPE (exact)"
  std::string formula;  // the score or bias, Unicode, for the formula panel and `families`
  std::string summary;  // one paragraph: what the family does and why
  std::vector<ParamSpec> params;
  // Set by a family that takes the Phase C sector switches (pj-bias); every other family ignores
  // them (checkTrainable does not look at them for it).
  std::optional<SectorParams> sectorParams = std::nullopt;
  // A learned value (TrainableForm::snapshot's name) that shows a parameter of another name in the
  // explorer (train/learned_values.h): {"gate_FJ", "g_fj"}; every other one shows its own name.
  std::map<std::string, std::string> learnedShows = {};
};

// Per-position transforms of q and k whose plain dot product is the score s(i,j).
struct FactorizedQK {
  at::Tensor q;  // (B, H, Tq, F), F = D for most families, 2D for PoPE
  at::Tensor k;  // (B, H, Tk, F)
};

// Whether float arithmetic of a given width can run the factorized form up to a position.
struct PrecisionReport {
  bool ok = true;
  long long firstBadPosition = -1;  // first position where it fails; -1 if none up to maxPos
  std::string problem;              // "overflow", "underflow" or "precision loss"
  std::string detail;               // a sentence with the numbers
};

class Encoding {
 public:
  Encoding(const FamilyInfo& info, ParamSet params) : info_(info), params_(std::move(params)) {}
  virtual ~Encoding() = default;

  const FamilyInfo& info() const { return info_; }
  const std::string& id() const { return info_.id; }
  const ParamSet& params() const { return params_; }
  long long headDim() const { return params_.getInt("head_dim"); }
  // Heads the family distinguishes (slopes, frequencies); 1 when every head is the same.
  virtual long long heads() const { return 1; }

  // Kernel view (float64): the family's lag basis functions and, where defined, its kernel.
  virtual LagBasis basis(const std::vector<double>& lags) const = 0;

  // The basis the kernel probe fits with: the family's functions at one frequency channel. For
  // families that carry a whole frequency schedule (RoPE, PoPE, ...) this is the channel nearest
  // to `omega`; for the others it is basis(lags).
  virtual LagBasis probeBasis(const std::vector<double>& lags, double omega) const {
    return basis(lags);
  }

  // True when s(i,j) depends on i - j only.
  virtual bool isRelative() const { return true; }

  // ---- factorized form -------------------------------------------------------------------
  virtual bool hasFactorized() const = 0;
  // q (B, H, Tq, D), k (B, H, Tk, D), qPos (Tq), kPos (Tk) int64 absolute positions.
  // Throws Error if the family has no factorized form, NumericalRangeError if q's dtype cannot
  // represent the transform at these positions (see factorizedPrecision).
  virtual FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                                 const at::Tensor& kPos) const;
  // Where the factorized form breaks down in float32 or float64; ok for forms that cannot.
  virtual PrecisionReport factorizedPrecision(long long maxPos, bool float32) const;

  // ---- direct (lag) form ----------------------------------------------------------------
  // The score s(i,j) (B, H, Tq, Tk) from lag features, for d >= 0; entries with j > i are 0.
  // Memory is O(B H Tq Tk * small), so callers stream over key chunks (attentionLogits).
  virtual at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                                  const at::Tensor& kPos) const = 0;

  // Additive bias b(i,j) (H, Tq, Tk) in dtype, or an undefined tensor for families without one.
  virtual at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                          at::ScalarType dtype) const;

  // The factor on s in the logit: 1/sqrt(D) (times YaRN's temperature).
  virtual double scoreScale() const;
  // bias() for numHeads heads as a function of positions, for finishLogits.
  BiasFn biasFn(long long numHeads) const;

  // Float64 reference of the full logit l(i,j) for one head (0-based), written from docs/MATH.md
  // with plain loops and std::complex, independent of the fast paths. q, k point at D doubles.
  virtual double referenceLogit(const double* q, const double* k, long long i, long long j,
                                long long head) const = 0;

  // ---- feature norms -------------------------------------------------------------------
  // Natural log of ||x'(p)||^2 / ||x||^2, where x' is the query-side (query = true) or key-side
  // per-position transform of the head vector x (D doubles) at position p. 0 for families that
  // transform no features or have no factorized form. Computed in log space so that growth far
  // beyond float64's range is still reported.
  virtual double featureLogNormGain(const std::vector<double>& x, long long p, bool query) const {
    return 0.0;
  }

  // ---- trainable form -------------------------------------------------------------------
  // The family's learnable parameters and how the model scores with them (trainable.h). The
  // form refers to this encoding, which must outlive it.
  virtual std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const = 0;

 private:
  const FamilyInfo& info_;
  ParamSet params_;
};

enum class Form { Factorized, Direct };

// Full causal logits (B, H, Tq, Tk): scoreScale * s + b, -inf where j > i (finishLogits), in `form`
// over key chunks of `chunk` keys. q (B, H, Tq, D), k (B, H, Tk, D), positions int64.
at::Tensor attentionLogits(const Encoding& enc, const at::Tensor& q, const at::Tensor& k,
                           const at::Tensor& qPos, const at::Tensor& kPos, Form form,
                           long long chunk = 512);

}  // namespace poslab
