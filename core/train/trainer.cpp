// Trainer: building a run, the optimisation step and evaluation. Checkpoints are in
// checkpoint.cpp, the inspection calls (attention maps, sample predictions, position
// parameters) in inspection.cpp; trainer_state.h is what they share.
#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>

#include "analysis/final_query_attention.h"
#include "dist/dist_env.h"
#include "encodings/registry.h"
#include "model/pin_check.h"
#include "model/position_module.h"
#include "train/attention_blocks.h"
#include "train/pj_sector_init.h"
#include "train/run_limits.h"
#include "train/trainer_state.h"
#include "util/error.h"
#include "util/generator_lock.h"
#include "util/threads.h"

namespace poslab {

namespace {

// Floats of recorded attention weights one evaluation batch may hold (256 MB in float32).
constexpr long long kRecordedWeightsFloats = 1LL << 26;

// The stream of the evaluation sequences at length L: one per length, shifted past every other
// stream (lengths stay below 2^21) for a held-out set run.evalData != 0.
uint64_t evaluationStream(const RunConfig& run, long long length) {
  return kEvalStream + static_cast<uint64_t>(length) + (run.evalData << 32);
}

// A CUDA device of this machine: under a distributed launch the one of this process's local rank
// (one process per GPU), else the first.
torch::Device thisProcessCudaDevice() {
  const int count = static_cast<int>(torch::cuda::device_count());
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(dist::localCudaDevice(count)));
}

torch::Device chooseDevice(const std::string& want) {
  if (want == "cpu") return torch::kCPU;
  if (want == "cuda") {
    if (!torch::cuda::is_available())
      throw InvalidArgument("device cuda requested but this LibTorch build or machine has no CUDA",
                            "use --device cpu or auto");
    return thisProcessCudaDevice();
  }
  return torch::cuda::is_available() ? thisProcessCudaDevice() : torch::Device(torch::kCPU);
}
}  // namespace

uint64_t batchSeed(uint64_t runSeed, long long step, uint64_t stream) {
  // splitmix64 over (seed, stream, step): decorrelated, reproducible, platform independent.
  uint64_t x = runSeed * 0x9E3779B97F4A7C15ULL ^ (stream + 0x632BE59BD9B4E019ULL) ^
               (static_cast<uint64_t>(step) * 0xBF58476D1CE4E5B9ULL);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

double learningRateAt(const OptimConfig& o, long long step, long long totalSteps) {
  if (o.warmup > 0 && step < o.warmup) return o.lr * static_cast<double>(step + 1) / o.warmup;
  if (o.schedule == "constant") return o.lr;
  const double span = std::max<long long>(1, totalSteps - o.warmup);
  const double progress = std::clamp((step - o.warmup) / span, 0.0, 1.0);
  const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
  return o.lr * (o.minLrRatio + (1.0 - o.minLrRatio) * cosine);
}

// The mean cross-entropy of the scored positions (targets -1 are not scored): a 0-dim tensor on
// the logits' device, nothing read back. logits (B, T, V), b.targets (B, T).
static torch::Tensor trainingLoss(const torch::Tensor& logits, const Batch& b) {
  const int64_t V = logits.size(-1);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, V}), b.targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-1));
}

// clip_grad_norm_ without reading the norm back to the host (LibTorch's returns it as a double,
// which waits for the GPU): LibTorch 2.x's operations, coefficient max / (norm + 1e-6) capped at
// 1 on the device, so the gradients are those clip_grad_norm_ gives.
static void clipGradNormOnDevice(const std::vector<torch::Tensor>& params, double maxNorm) {
  std::vector<torch::Tensor> norms;
  for (const auto& p : params)
    if (p.grad().defined()) norms.push_back(p.grad().norm(2));
  if (norms.empty()) return;
  torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  torch::Tensor coef = (maxNorm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& p : params)
    if (p.grad().defined()) p.grad().mul_(coef);
}

std::pair<torch::Tensor, double> Trainer::State::lossAndAccuracy(const torch::Tensor& logits,
                                                                 const Batch& b) {
  torch::Tensor loss = trainingLoss(logits, b);
  double acc = NAN;
  if (b.answer.defined() && b.answer.any().item<bool>()) {
    torch::Tensor pred = logits.argmax(-1);
    torch::Tensor hit = (pred == b.targets).logical_and(b.answer);
    acc = hit.sum().item<double>() / b.answer.sum().item<double>();
  }
  return {loss, acc};
}

namespace {
// Completes `cfg` against its tasks and checks what a run needs of them, before any model exists:
// the vocabulary, the evaluation lengths (empty: the train length) and the answer logits filled
// in; every length within what the tasks generate; the evaluation and a training step within
// their budgets; the pins. The tasks may be outlines (Trainer::check).
void completeAndCheck(TrainConfig& cfg, const Task& task, const Task& evalTask) {
  cfg.model.vocab = task.vocabSize();
  if (cfg.run.evalLengths.empty()) cfg.run.evalLengths = {cfg.task.trainLength};
  for (long long L : cfg.run.evalLengths) {
    if (L < evalTask.minLength() || L > evalTask.maxLength())
      throw InvalidArgument("evaluation length " + std::to_string(L) + " is outside what task " +
                                task.id() + " can generate",
                            "allowed [" + std::to_string(evalTask.minLength()) + ", " +
                                std::to_string(evalTask.maxLength()) + "]");
  }
  if (cfg.task.trainLength < task.minLength() || cfg.task.trainLength > task.maxLength())
    throw InvalidArgument("train length " + std::to_string(cfg.task.trainLength) +
                              " is outside what task " + task.id() + " can generate",
                          "allowed [" + std::to_string(task.minLength()) + ", " +
                              std::to_string(task.maxLength()) + "]");
  for (long long t : cfg.task.trainLengths)
    if (t < task.minLength() || t > task.maxLength())
      throw InvalidArgument("field 'task.train_lengths': " + std::to_string(t) +
                                " is outside what task " + task.id() + " can generate",
                            "allowed [" + std::to_string(task.minLength()) + ", " +
                                std::to_string(task.maxLength()) + "]");
  if (cfg.task.minTrainLength > 0 && cfg.task.minTrainLength < task.minLength())
    throw InvalidArgument("min train length " + std::to_string(cfg.task.minTrainLength) +
                              " is shorter than task " + task.id() + " can generate",
                          "use at least " + std::to_string(task.minLength()) + ", or 0");
  for (long long L : cfg.run.evalLengths)
    checkEvaluationFits(cfg, task.vocabSize(), L,
                        evaluationPasses(task, L) * cfg.run.evalSequences);
  checkEvaluationTotalFits(cfg, task, cfg.run.evalLengths, cfg.run.evalSequences);
  if (cfg.model.answerLogits < 0) cfg.model.answerLogits = task.answerTokenCount();
  if (cfg.model.answerLogits > 0 &&
      (task.answerTokenCount() == 0 || cfg.model.answerLogits < task.answerTokenCount()))
    throw InvalidArgument(
        "field 'model.answer_logits' = " + std::to_string(cfg.model.answerLogits) + ": task " +
            task.id() +
            (task.answerTokenCount() == 0
                 ? " scores every token, not a few answer tokens"
                 : " has " + std::to_string(task.answerTokenCount()) + " answers"),
        task.answerTokenCount() == 0
            ? "use 0"
            : "use 0 or at least " + std::to_string(task.answerTokenCount()));
  checkTrainingFits(cfg, task.vocabSize());
  checkPinsApply(cfg.model, cfg.task.trainLength);
}
}  // namespace

void Trainer::check(TrainConfig cfg) {
  cfg.validate();
  resolvePjSectorChoices(cfg);
  cfg.task.headDim = cfg.model.headDim();
  completeAndCheck(cfg, *makeTaskOutline(cfg.task), *makeEvaluationTaskOutline(cfg.task));
  chooseDevice(cfg.run.device);
  makeEncoding(cfg.model.family, resolvedFamilyParams(cfg.model, cfg.task.trainLength));
  checkTrainableStart(cfg.model, cfg.task.trainLength);
}

void Trainer::State::build() {
  cfg.validate();
  resolvePjSectorChoices(cfg);             // model.pj_* into the family's sectorParams (pj-bias)
  cfg.task.headDim = cfg.model.headDim();  // before the tasks: it sets kernel-lm's omega
  task = makeTask(cfg.task);
  evalTask = makeEvaluationTask(cfg.task);
  completeAndCheck(cfg, *task, *evalTask);
  device = chooseDevice(cfg.run.device);
  try {
    // The initial weights come from torch's process-wide generator: seeding it and drawing
    // from it must not interleave with another run starting on another thread.
    std::lock_guard<std::mutex> lock(torchGeneratorMutex());
    torch::manual_seed(cfg.run.seed);
    model = TinyTransformer(cfg.model, cfg.task.trainLength);
    model->recomputeBlocks = cfg.run.recomputeActivations;
    model->useAttentionPath(parseAttentionPath(cfg.run.attention));
    model->to(device);
  } catch (const c10::Error& e) {  // LibTorch's message names no field: say which one
    throw InvalidArgument(std::string("field 'model': LibTorch cannot build this model (") +
                          e.what_without_backtrace() + ")");
  }
  // The parameter groups (ParameterGroup), each in the model's parameter order.
  const std::set<const c10::TensorImpl*> positionParams = model->positionParameterSet();
  std::vector<torch::Tensor> params[kParameterGroupCount];
  std::vector<std::string> names[kParameterGroupCount];
  for (const auto& p : model->named_parameters()) {
    const size_t g = positionParams.count(p.value().unsafeGetTensorImpl()) ? kPositionGroup
                     : p.value().dim() == 2                                ? kDecayedGroup
                                                                           : kUndecayedGroup;
    params[g].push_back(p.value());
    names[g].push_back(p.key());
  }
  paramNames.clear();
  for (const auto& groupNames : names)
    paramNames.insert(paramNames.end(), groupNames.begin(), groupNames.end());
  auto opts = torch::optim::AdamWOptions(cfg.optim.lr)
                  .betas({cfg.optim.beta1, cfg.optim.beta2})
                  .weight_decay(cfg.optim.weightDecay);
  auto undecayedOpts = opts;
  if (cfg.optim.decay != "all") undecayedOpts.weight_decay(0.0);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(params[kDecayedGroup], std::make_unique<torch::optim::AdamWOptions>(opts));
  groups.emplace_back(params[kUndecayedGroup],
                      std::make_unique<torch::optim::AdamWOptions>(undecayedOpts));
  groups.emplace_back(params[kPositionGroup],
                      std::make_unique<torch::optim::AdamWOptions>(undecayedOpts));
  try {
    optimizer = std::make_unique<torch::optim::AdamW>(groups, opts);
  } catch (const c10::Error& e) {
    throw InvalidArgument(
        std::string(
            "field 'optim' (lr, beta1, beta2, weight_decay): LibTorch's AdamW refuses it (") +
        e.what_without_backtrace() + ")");
  }
}

Trainer::Trainer(TrainConfig config) : s_(std::make_unique<State>()) {
  s_->cfg = std::move(config);
  s_->build();
}

Trainer::~Trainer() {
  s_.reset();
  releaseFreedMemory();  // what the run's steps freed goes back to the system (util/threads.h)
}

long long Trainer::stepCount() const {
  return s_->step;
}

at::Tensor Trainer::parameter(const std::string& name) const {
  for (const auto& p : s_->model->named_parameters())
    if (p.key() == name) return p.value();
  throw InvalidArgument("the model has no parameter '" + name + "'");
}

std::vector<std::string> Trainer::parameterNames() const {
  std::vector<std::string> names;
  for (const auto& p : s_->model->named_parameters()) names.push_back(p.key());
  return names;
}
const TrainConfig& Trainer::config() const {
  return s_->cfg;
}
std::string Trainer::deviceName() const {
  return s_->device.str();
}
std::string Trainer::deviceNameFor(const std::string& device) {
  return chooseDevice(device).str();
}
long long Trainer::parameterCount() const {
  return s_->model->parameterCount();
}
long long Trainer::vocabSize() const {
  return s_->task->vocabSize();
}

long long trainingLengthAt(const TaskConfig& task, long long step, uint64_t dataSeed) {
  if (!task.trainLengths.empty()) {
    const auto n = static_cast<uint64_t>(task.trainLengths.size());
    const uint64_t i = task.lengthSampling == "random" ? batchSeed(dataSeed, 0, 0x1e58) % n
                                                       : static_cast<uint64_t>(step) % n;
    return task.trainLengths[i];
  }
  if (task.minTrainLength <= 0 || task.minTrainLength >= task.trainLength) return task.trainLength;
  const auto span = static_cast<uint64_t>(task.trainLength - task.minTrainLength + 1);
  // The data seed is already a hash of (run seed, step); remix it so the length and the batch
  // contents are not drawn from the same bits.
  return task.minTrainLength + static_cast<long long>(batchSeed(dataSeed, 0, 0x1e57) % span);
}

Snapshot Trainer::step() {
  State& s = *s_;
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t dataSeed = batchSeed(s.cfg.run.seed, s.step, kTrainStream);
  Batch b = s.toDevice(
      s.task->sample(s.cfg.optim.batch, trainingLengthAt(s.cfg.task, s.step, dataSeed), dataSeed));
  s.model->train();
  s.model->configureAttention(/*allowFactorized=*/true,
                              /*block=*/trainingAttentionBlock(s.cfg.task.trainLength), false);
  s.optimizer->zero_grad();
  // Metrics are read back to the host (a wait for the GPU) every metricsEvery steps and on the
  // last; in between, the step only queues work (RunConfig::metricsEvery). Default: every step. A
  // data-parallel step reads them every step (the ranks agree on the loss through the host).
  const bool readMetrics = s.group != nullptr || s.cfg.run.metricsEvery <= 1 ||
                           (s.step + 1) % s.cfg.run.metricsEvery == 0 ||
                           s.step + 1 >= s.cfg.run.steps;
  double acc = NAN, lossValue = NAN, gradNorm = NAN;
  if (s.group) {
    std::tie(lossValue, acc) = s.shardedLossAndGradients(b);
  } else {
    torch::Tensor loss;
    torch::Tensor logits;
    try {
      logits = s.model->forward(b.tokens);
    } catch (const NumericalRangeError& e) {
      // A position parameter that left the range its formula can take (a learned jet mix's c_0
      // near zero): the run stops as on a non-finite loss.
      s.optimizer->zero_grad();
      throw DivergedError("training diverged at step " + std::to_string(s.step) + ": " + e.what(),
                          "the weights are those after the step that moved it there");
    }
    if (readMetrics)
      std::tie(loss, acc) = State::lossAndAccuracy(logits, b);
    else
      loss = trainingLoss(logits, b);
    if (readMetrics) lossValue = loss.item<double>();
    if (readMetrics && !std::isfinite(lossValue)) {
      s.optimizer->zero_grad();
      throw DivergedError("training diverged at step " + std::to_string(s.step) +
                              ": the loss is not finite (" + std::to_string(lossValue) + ")",
                          "the weights are those before this step; lower the learning rate");
    }
    loss.backward();
  }
  // grad_clip 0 clips nothing; an infinite bound still measures the norm.
  const double clip =
      s.cfg.optim.gradClip > 0 ? s.cfg.optim.gradClip : std::numeric_limits<double>::infinity();
  if (readMetrics)
    gradNorm = torch::nn::utils::clip_grad_norm_(s.model->parameters(), clip);
  else if (s.cfg.optim.gradClip > 0)
    clipGradNormOnDevice(s.model->parameters(), clip);
  if (readMetrics && !std::isfinite(gradNorm)) {
    s.optimizer->zero_grad();
    throw DivergedError(
        "training diverged at step " + std::to_string(s.step) + ": the gradient norm is not finite",
        "the weights are those before this step; lower the learning rate");
  }
  const double lr = learningRateAt(s.cfg.optim, s.step, s.cfg.run.steps);
  auto& groups = s.optimizer->param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double scale = g == kPositionGroup ? s.cfg.optim.positionLrScale : 1.0;
    static_cast<torch::optim::AdamWOptions&>(groups[g].options()).lr(lr * scale);
  }
  s.optimizer->step();
  ++s.step;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Snapshot snap;
  snap.step = s.step;
  snap.loss = lossValue;
  snap.accuracy = acc;
  snap.lr = lr;
  snap.gradNorm = gradNorm;
  snap.tokensPerSecond = static_cast<double>(b.tokens.numel()) / std::max(seconds, 1e-9);
  if (readMetrics) {
    snap.positionLayers = positionParametersByLayer();
    snap.position = meanOverLayers(snap.positionLayers);
  }
  return snap;
}

std::vector<EvalResult> Trainer::evaluate(const std::vector<long long>& lengths,
                                          long long sequences, const EvalProgress& progress) {
  State& s = *s_;
  const long long total = sequences > 0 ? sequences : s.cfg.run.evalSequences;
  for (long long L : lengths)
    checkEvaluationFits(s.cfg, s.task->vocabSize(), L, evaluationPasses(*s.evalTask, L) * total);
  checkEvaluationTotalFits(s.cfg, *s.evalTask, lengths, total);
  torch::NoGradGuard noGrad;
  s.model->eval();
  s.model->configureAttention(/*allowFactorized=*/true, /*block=*/kEvalAttentionBlock, false);
  // Before each batch: a stop request ends the evaluation within one batch.
  const auto stopIfAsked = [&](long long L) {
    if (s.evaluationStop && s.evaluationStop())
      throw EvaluationStopped("evaluation stopped at length " + std::to_string(L));
  };
  std::vector<EvalResult> out;
  for (size_t lengthIndex = 0; lengthIndex < lengths.size(); ++lengthIndex) {
    const long long L = lengths[lengthIndex];
    if (L < s.evalTask->minLength() || L > s.evalTask->maxLength()) {
      throw InvalidArgument("evaluation length " + std::to_string(L) + " is outside what task " +
                                s.task->id() + " can generate",
                            "allowed [" + std::to_string(s.evalTask->minLength()) + ", " +
                                std::to_string(s.evalTask->maxLength()) + "]");
    }
    // Final-query attention (sector-teacher): the last layer records its weights, in batches of
    // at most kRecordedWeightsFloats floats.
    const bool attentionStats =
        !s.evalTask->teacherAttention(2).empty() && L <= kMaxFinalQueryStatsLength;
    long long bs = std::max<long long>(1, std::min(total, s.cfg.run.evalTokensPerBatch / L));
    AttentionImpl& lastAttention = *s.model->blocks.back()->attn;
    // The last layer stops recording after the main pass, or when a stop throws during it.
    struct StopRecording {
      AttentionImpl& attention;
      bool active;
      void now() {
        if (!active) return;
        active = false;
        attention.recordWeights = false;
        attention.lastWeights = torch::Tensor();
        attention.block = kEvalAttentionBlock;
      }
      ~StopRecording() { now(); }
    } stopRecording{lastAttention, attentionStats};
    if (attentionStats) {
      bs = std::max<long long>(
          1, std::min(bs, kRecordedWeightsFloats / (lastAttention.heads * L * L)));
      lastAttention.recordWeights = true;
      lastAttention.block = std::max<int64_t>(lastAttention.block, L);
    }
    FinalQueryAttentionSums spread;
    double lossSum = 0, lossCount = 0, hits = 0, answers = 0;
    const std::vector<long long> distances = s.evalTask->accuracyDistances(L);
    const long long passes = total * (1 + static_cast<long long>(distances.size()));
    for (long long done = 0, i = 0; done < total; done += bs, ++i) {
      stopIfAsked(L);
      const long long n = std::min(bs, total - done);
      Batch b = s.toDevice(
          s.evalTask->sample(n, L, batchSeed(s.cfg.run.seed, i, evaluationStream(s.cfg.run, L))));
      torch::Tensor logits = s.model->forward(b.tokens);
      if (attentionStats) spread.add(finalQueryAttentionSums(lastAttention.lastWeights));
      const int64_t V = logits.size(-1);
      torch::Tensor tokLoss = torch::nn::functional::cross_entropy(
          logits.reshape({-1, V}), b.targets.reshape({-1}),
          torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-1).reduction(torch::kSum));
      lossSum += tokLoss.item<double>();
      lossCount += (b.targets != -1).sum().item<double>();
      if (b.answer.defined()) {
        hits += (logits.argmax(-1) == b.targets).logical_and(b.answer).sum().item<double>();
        answers += b.answer.sum().item<double>();
      }
      if (progress) progress(lengthIndex, L, done + n, passes);
    }
    stopRecording.now();
    EvalResult r;
    r.length = L;
    r.finalQueryEntropy = spread.meanEntropy();
    r.finalQuerySupport = spread.meanSupport();
    r.loss = lossSum / std::max(1.0, lossCount);
    r.accuracy = (s.task->hasAccuracy() && answers > 0) ? hits / answers : NAN;
    // Accuracy against distance (kv-retrieval, as the paper reports it): as many sequences again
    // at each of the task's distance points, every one with its key that far back.
    for (size_t k = 0; k < distances.size(); ++k) {
      const long long dist = distances[k];
      const long long before = total * static_cast<long long>(k + 1);  // passes already done
      double distHits = 0, distAnswers = 0;
      for (long long done = 0, i = 0; done < total; done += bs, ++i) {
        stopIfAsked(L);
        const long long n = std::min(bs, total - done);
        Batch b = s.toDevice(s.evalTask->sampleAtDistance(
            n, L, dist, batchSeed(s.cfg.run.seed, i, evaluationStream(s.cfg.run, L))));
        torch::Tensor logits = s.model->forward(b.tokens);
        distHits += (logits.argmax(-1) == b.targets).logical_and(b.answer).sum().item<double>();
        distAnswers += b.answer.sum().item<double>();
        if (progress) progress(lengthIndex, L, before + done + n, passes);
      }
      if (distAnswers > 0) r.accuracyByDistance[dist] = distHits / distAnswers;
    }
    out.push_back(r);
  }
  return out;
}

void Trainer::setEvaluationStop(EvaluationStop stop) {
  s_->evaluationStop = std::move(stop);
}

const Task& Trainer::evalTask() const {
  return *s_->evalTask;
}

}  // namespace poslab
