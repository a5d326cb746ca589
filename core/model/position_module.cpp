#include "model/position_module.h"

#include "encodings/registry.h"

namespace poslab {

namespace {
bool familyHas(const std::string& family, const std::string& param) {
  for (const auto& p : familyInfo(family).params)
    if (p.name == param) return true;
  return false;
}
}  // namespace

std::map<std::string, double> resolvedFamilyParams(const ModelConfig& cfg, long long trainLength) {
  std::map<std::string, double> p = cfg.familyParams;
  const auto& f = cfg.family;
  // The model-sized parameters (isModelSizedFamilyParam, model_config.h).
  if (familyHas(f, "heads")) p["heads"] = static_cast<double>(cfg.heads);
  p["head_dim"] = static_cast<double>(cfg.headDim());
  if (familyHas(f, "L") && !p.count("L")) p["L"] = static_cast<double>(trainLength);
  // MATH 2.3's initial values (gamma = 1e-4, eta = 0 for the Jordan families), as each family's
  // parameter specs state them.
  for (const auto& spec : familyInfo(f).params)
    if (spec.trainedInit && !p.count(spec.name)) p[spec.name] = *spec.trainedInit;
  return p;
}

PositionModuleImpl::PositionModuleImpl(const ModelConfig& cfg, long long trainLength) {
  encoding_ = makeEncoding(cfg.family, resolvedFamilyParams(cfg, trainLength));
  TrainableContext ctx;
  ctx.heads = cfg.heads;
  ctx.pinned.insert(cfg.pinned.begin(), cfg.pinned.end());
  // ctx.checkStart stays false: the model starts from what it is given (an eta past its cap at
  // 0.99 of it, MATH 2.3); a user's setup with such a start is refused before this
  // (checkTrainable: checkTrainableStart).
  form_ = encoding_->trainable(ctx);
  for (Learnable& l : form_->learnables()) {
    raw_[l.name] = l.learned ? register_parameter(l.name, l.init) : register_buffer(l.name, l.init);
  }
}

BlockScorer PositionModuleImpl::scorer(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& pos, bool allowFactorized) const {
  return blockScorer(form_->score(raw_, q, k, pos, allowFactorized), encoding_->scoreScale(), pos);
}

TrainedScore PositionModuleImpl::trainedScore(const at::Tensor& q, const at::Tensor& k,
                                              const at::Tensor& pos, bool allowFactorized) const {
  return form_->score(raw_, q, k, pos, allowFactorized);
}

std::map<std::string, std::vector<double>> PositionModuleImpl::snapshot() const {
  return form_->snapshot(raw_);
}

std::vector<Ablation> PositionModuleImpl::ablations() const {
  return form_->ablations();
}

void PositionModuleImpl::setAblation(size_t index, double keep) {
  form_->setAblation(raw_, index, keep);
}

}  // namespace poslab
