#include "train/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>

#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/json_fields.h"
#include "model/pin_check.h"
#include "model/transformer.h"
#include "tasks/task.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "util/error.h"

namespace poslab {

namespace {

// Passes over `sequences` sequences an evaluation at length L makes: one, plus one per distance
// point of a task that reports accuracy against distance (kv-retrieval).
long long evaluationPasses(const Task& task, long long length) {
  return 1 + static_cast<long long>(task.accuracyDistances(length).size());
}
constexpr const char* kCheckpointFormat = "poslab-checkpoint-1";
constexpr uint64_t kTrainStream = 0;
constexpr uint64_t kEvalStream = 1'000'003;
constexpr uint64_t kSampleStream = 2'000'003;

torch::Device chooseDevice(const std::string& want) {
  if (want == "cpu") return torch::kCPU;
  if (want == "cuda") {
    if (!torch::cuda::is_available())
      throw InvalidArgument("device cuda requested but this LibTorch build or machine has no CUDA",
                            "use --device cpu or auto");
    return torch::kCUDA;
  }
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
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
  const double span = std::max<long long>(1, totalSteps - o.warmup);
  const double progress = std::clamp((step - o.warmup) / span, 0.0, 1.0);
  const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
  return o.lr * (o.minLrRatio + (1.0 - o.minLrRatio) * cosine);
}

struct Trainer::State {
  TrainConfig cfg;
  std::unique_ptr<Task> task;
  std::unique_ptr<Task> evalTask;  // the same task; for text, the held-out split
  torch::Device device{torch::kCPU};
  TinyTransformer model{nullptr};
  std::unique_ptr<torch::optim::AdamW> optimizer;
  std::vector<std::string> paramNames;  // in optimizer order (group 0 then group 1)
  long long step = 0;

  // Loss and accuracy of one batch; logits (B, T, V).
  static std::pair<torch::Tensor, double> lossAndAccuracy(const torch::Tensor& logits,
                                                          const Batch& b) {
    const int64_t V = logits.size(-1);
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, V}), b.targets.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-1));
    double acc = NAN;
    if (b.answer.defined() && b.answer.any().item<bool>()) {
      torch::Tensor pred = logits.argmax(-1);
      torch::Tensor hit = (pred == b.targets).logical_and(b.answer);
      acc = hit.sum().item<double>() / b.answer.sum().item<double>();
    }
    return {loss, acc};
  }

  Batch toDevice(Batch b) const {
    b.tokens = b.tokens.to(device);
    b.targets = b.targets.to(device);
    if (b.answer.defined()) b.answer = b.answer.to(device);
    return b;
  }

  void build() {
    cfg.validate();
    cfg.task.headDim = cfg.model.headDim();  // before the tasks: it sets kernel-lm's omega
    task = makeTask(cfg.task);
    TaskConfig evalCfg = cfg.task;
    if (cfg.task.id == "byte-lm") evalCfg.options["split"] = 1;  // evaluate on held-out text
    evalTask = makeTask(evalCfg);
    cfg.model.vocab = task->vocabSize();
    if (cfg.run.evalLengths.empty()) cfg.run.evalLengths = {cfg.task.trainLength};
    for (long long L : cfg.run.evalLengths) {
      if (L < evalTask->minLength() || L > evalTask->maxLength())
        throw InvalidArgument("evaluation length " + std::to_string(L) + " is outside what task " +
                                  task->id() + " can generate",
                              "allowed [" + std::to_string(task->minLength()) + ", " +
                                  std::to_string(task->maxLength()) + "]");
    }
    if (cfg.task.trainLength < task->minLength() || cfg.task.trainLength > task->maxLength())
      throw InvalidArgument("train length " + std::to_string(cfg.task.trainLength) +
                                " is outside what task " + task->id() + " can generate",
                            "allowed [" + std::to_string(task->minLength()) + ", " +
                                std::to_string(task->maxLength()) + "]");
    if (cfg.task.minTrainLength > 0 && cfg.task.minTrainLength < task->minLength())
      throw InvalidArgument("min train length " + std::to_string(cfg.task.minTrainLength) +
                                " is shorter than task " + task->id() + " can generate",
                            "use at least " + std::to_string(task->minLength()) + ", or 0");
    for (long long L : cfg.run.evalLengths)
      checkEvaluationFits(cfg, task->vocabSize(), L,
                          evaluationPasses(*task, L) * cfg.run.evalSequences);
    checkTrainingFits(cfg, task->vocabSize());
    checkPinsApply(cfg.model, cfg.task.trainLength);
    device = chooseDevice(cfg.run.device);
    try {
      // The initial weights come from torch's process-wide generator: seeding it and drawing
      // from it must not interleave with another run starting on another thread.
      static std::mutex generatorMutex;
      std::lock_guard<std::mutex> lock(generatorMutex);
      torch::manual_seed(cfg.run.seed);
      model = TinyTransformer(cfg.model, cfg.task.trainLength);
      model->to(device);
    } catch (const c10::Error& e) {  // LibTorch's message names no field: say which one
      throw InvalidArgument(std::string("field 'model': LibTorch cannot build this model (") +
                            e.what_without_backtrace() + ")");
    }
    // Groups: 0 matrices (decayed), 1 norms and biases, 2 position parameters (lr scaled).
    std::vector<torch::Tensor> decay, noDecay, position;
    std::vector<std::string> decayNames, noDecayNames, positionNames;
    for (const auto& p : model->named_parameters()) {
      if (p.key().find("position") != std::string::npos) {
        position.push_back(p.value());
        positionNames.push_back(p.key());
      } else if (p.value().dim() == 2) {
        decay.push_back(p.value());
        decayNames.push_back(p.key());
      } else {
        noDecay.push_back(p.value());
        noDecayNames.push_back(p.key());
      }
    }
    paramNames = decayNames;
    paramNames.insert(paramNames.end(), noDecayNames.begin(), noDecayNames.end());
    paramNames.insert(paramNames.end(), positionNames.begin(), positionNames.end());
    try {
      buildOptimizer(decay, noDecay, position);
    } catch (const c10::Error& e) {
      throw InvalidArgument(
          std::string(
              "field 'optim' (lr, beta1, beta2, weight_decay): LibTorch's AdamW refuses it (") +
          e.what_without_backtrace() + ")");
    }
  }

  void buildOptimizer(const std::vector<torch::Tensor>& decay,
                      const std::vector<torch::Tensor>& noDecay,
                      const std::vector<torch::Tensor>& position) {
    auto opts = torch::optim::AdamWOptions(cfg.optim.lr)
                    .betas({cfg.optim.beta1, cfg.optim.beta2})
                    .weight_decay(cfg.optim.weightDecay);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay, std::make_unique<torch::optim::AdamWOptions>(opts));
    auto noDecayOpts = opts;
    noDecayOpts.weight_decay(0.0);
    groups.emplace_back(noDecay, std::make_unique<torch::optim::AdamWOptions>(noDecayOpts));
    groups.emplace_back(position, std::make_unique<torch::optim::AdamWOptions>(noDecayOpts));
    optimizer = std::make_unique<torch::optim::AdamW>(groups, opts);
  }

  std::vector<torch::Tensor> orderedParams() const {
    std::vector<torch::Tensor> out;
    for (const auto& g : optimizer->param_groups())
      for (const auto& p : g.params()) out.push_back(p);
    return out;
  }
};

Trainer::Trainer(TrainConfig config) : s_(std::make_unique<State>()) {
  s_->cfg = std::move(config);
  s_->build();
}

Trainer::~Trainer() = default;

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
long long Trainer::parameterCount() const {
  return s_->model->parameterCount();
}
long long Trainer::vocabSize() const {
  return s_->task->vocabSize();
}

long long trainingLengthAt(const TaskConfig& task, uint64_t dataSeed) {
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
      s.task->sample(s.cfg.optim.batch, trainingLengthAt(s.cfg.task, dataSeed), dataSeed));
  s.model->train();
  s.model->configureAttention(/*allowFactorized=*/true,
                              /*block=*/std::max<int64_t>(1024, s.cfg.task.trainLength), false);
  s.optimizer->zero_grad();
  auto [loss, acc] = State::lossAndAccuracy(s.model->forward(b.tokens), b);
  const double lossValue = loss.item<double>();
  if (!std::isfinite(lossValue)) {
    s.optimizer->zero_grad();
    throw DivergedError("training diverged at step " + std::to_string(s.step) +
                            ": the loss is not finite (" + std::to_string(lossValue) + ")",
                        "the weights are those before this step; lower the learning rate");
  }
  loss.backward();
  const double gradNorm =
      torch::nn::utils::clip_grad_norm_(s.model->parameters(), s.cfg.optim.gradClip);
  if (!std::isfinite(gradNorm)) {
    s.optimizer->zero_grad();
    throw DivergedError(
        "training diverged at step " + std::to_string(s.step) + ": the gradient norm is not finite",
        "the weights are those before this step; lower the learning rate");
  }
  const double lr = learningRateAt(s.cfg.optim, s.step, s.cfg.run.steps);
  auto& groups = s.optimizer->param_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double scale = g == 2 ? s.cfg.optim.positionLrScale : 1.0;
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
  snap.position = positionParameters(0);
  return snap;
}

std::vector<EvalResult> Trainer::evaluate(const std::vector<long long>& lengths,
                                          long long sequences, const EvalProgress& progress) {
  State& s = *s_;
  const long long total = sequences > 0 ? sequences : s.cfg.run.evalSequences;
  for (long long L : lengths)
    checkEvaluationFits(s.cfg, s.task->vocabSize(), L, evaluationPasses(*s.evalTask, L) * total);
  torch::NoGradGuard noGrad;
  s.model->eval();
  s.model->configureAttention(/*allowFactorized=*/true, /*block=*/1024, false);
  std::vector<EvalResult> out;
  for (long long L : lengths) {
    if (L < s.evalTask->minLength() || L > s.evalTask->maxLength()) {
      throw InvalidArgument("evaluation length " + std::to_string(L) + " is outside what task " +
                                s.task->id() + " can generate",
                            "allowed [" + std::to_string(s.evalTask->minLength()) + ", " +
                                std::to_string(s.evalTask->maxLength()) + "]");
    }
    const long long bs = std::max<long long>(1, std::min(total, s.cfg.run.evalTokensPerBatch / L));
    double lossSum = 0, lossCount = 0, hits = 0, answers = 0;
    for (long long done = 0, i = 0; done < total; done += bs, ++i) {
      const long long n = std::min(bs, total - done);
      Batch b = s.toDevice(s.evalTask->sample(n, L, batchSeed(s.cfg.run.seed, i, kEvalStream + L)));
      torch::Tensor logits = s.model->forward(b.tokens);
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
      if (progress) progress(L, done + n, total);
    }
    EvalResult r;
    r.length = L;
    r.loss = lossSum / std::max(1.0, lossCount);
    r.accuracy = (s.task->hasAccuracy() && answers > 0) ? hits / answers : NAN;
    // Accuracy against distance (kv-retrieval, as the paper reports it): as many sequences again
    // at each of the task's distance points, every one with its key that far back.
    for (long long dist : s.evalTask->accuracyDistances(L)) {
      double distHits = 0, distAnswers = 0;
      for (long long done = 0, i = 0; done < total; done += bs, ++i) {
        const long long n = std::min(bs, total - done);
        Batch b = s.toDevice(s.evalTask->sampleAtDistance(
            n, L, dist, batchSeed(s.cfg.run.seed, i, kEvalStream + L)));
        torch::Tensor logits = s.model->forward(b.tokens);
        distHits += (logits.argmax(-1) == b.targets).logical_and(b.answer).sum().item<double>();
        distAnswers += b.answer.sum().item<double>();
      }
      if (distAnswers > 0) r.accuracyByDistance[dist] = distHits / distAnswers;
    }
    out.push_back(r);
  }
  return out;
}

at::Tensor Trainer::predictLogits(const at::Tensor& tokens) {
  State& s = *s_;
  torch::NoGradGuard noGrad;
  s.model->eval();
  s.model->configureAttention(/*allowFactorized=*/true, /*block=*/1024, false);
  return s.model->forward(tokens.to(s.device)).to(torch::kCPU, torch::kDouble);
}

const Task& Trainer::evalTask() const {
  return *s_->evalTask;
}

AttentionSample Trainer::attentionSample(long long length, long long maxSide) {
  State& s = *s_;
  torch::NoGradGuard noGrad;
  s.model->eval();
  s.model->configureAttention(true, std::max<int64_t>(length, 1), /*recordWeights=*/true);
  Batch b = s.toDevice(s.task->sample(1, length, batchSeed(s.cfg.run.seed, 0, kSampleStream)));
  s.model->forward(b.tokens);
  AttentionSample out;
  out.length = length;
  out.size = std::min(length, maxSide);
  for (const auto& w : s.model->attentionWeights()) {
    // (1, H, T, T) -> (H, size, size) by average pooling.
    torch::Tensor pooled =
        torch::adaptive_avg_pool2d(w[0].to(torch::kCPU, torch::kDouble), {out.size, out.size})
            .contiguous();
    std::vector<std::vector<double>> heads;
    for (int64_t h = 0; h < pooled.size(0); ++h) {
      torch::Tensor m = pooled[h].contiguous();
      heads.emplace_back(m.data_ptr<double>(), m.data_ptr<double>() + m.numel());
    }
    out.maps.push_back(std::move(heads));
  }
  s.model->configureAttention(true, 1024, false);
  return out;
}

std::vector<ExamplePrediction> Trainer::samplePredictions(long long count, long long length) {
  State& s = *s_;
  if (count < 1) throw InvalidArgument("sample predictions need at least one example");
  torch::NoGradGuard noGrad;
  s.model->eval();
  s.model->configureAttention(true, /*block=*/1024, false);
  // The sample stream as in attentionSample: example b does not depend on the batch size.
  Batch b = s.task->sample(count, length, batchSeed(s.cfg.run.seed, 0, kSampleStream));
  torch::Tensor probs = torch::softmax(s.model->forward(b.tokens.to(s.device)), -1)
                            .to(torch::kCPU, torch::kDouble);  // (B, T, V)
  torch::Tensor tokens = b.tokens.contiguous(), targets = b.targets.contiguous();
  torch::Tensor answer = b.answer.defined() ? b.answer.contiguous() : torch::Tensor();
  std::vector<ExamplePrediction> out(static_cast<size_t>(count));
  for (long long i = 0; i < count; ++i) {
    ExamplePrediction& e = out[static_cast<size_t>(i)];
    const int64_t* tok = tokens[i].data_ptr<int64_t>();
    const int64_t* tgt = targets[i].data_ptr<int64_t>();
    const bool* ans = answer.defined() ? answer[i].data_ptr<bool>() : nullptr;
    e.tokens.assign(tok, tok + length);
    // First answer position; tasks without answers (byte-lm): the last position with a target.
    for (long long t = 0; t < length && e.position < 0 && ans; ++t)
      if (ans[t]) e.position = t;
    for (long long t = length - 1; t >= 0 && e.position < 0; --t)
      if (tgt[t] != -1) e.position = t;
    if (e.position < 0) continue;
    torch::Tensor p = probs[i][e.position];  // (V)
    e.target = tgt[e.position];
    e.prediction = p.argmax().item<int64_t>();
    e.confidence = p[e.prediction].item<double>();
  }
  return out;
}

std::vector<OrderLoo> Trainer::pjOrderLoo(long long length) {
  State& s = *s_;
  auto modules = s.model->positionModules();
  if (modules.empty()) return {};
  const std::vector<Ablation> parts = modules[0]->ablations();  // the same in every layer
  if (parts.empty()) return {};
  const double base = evaluate({length}).front().loss;
  std::vector<OrderLoo> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (auto& m : modules) m->setAblation(i, 0.0);
    const double without = evaluate({length}).front().loss;
    for (auto& m : modules) m->setAblation(i, 1.0);
    out.push_back({parts[i].group, parts[i].order, without - base});
  }
  return out;
}

std::map<std::string, std::vector<double>> Trainer::positionParameters(long long layer) const {
  auto modules = s_->model->positionModules();
  if (layer < 0 || layer >= static_cast<long long>(modules.size())) return {};
  return modules[layer]->snapshot();
}

void Trainer::saveCheckpoint(const std::string& path) const {
  const State& s = *s_;
  c10::Dict<std::string, at::Tensor> weights;
  for (const auto& p : s.model->named_parameters())
    weights.insert(p.key(), p.value().detach().cpu());
  for (const auto& b : s.model->named_buffers()) weights.insert(b.key(), b.value().detach().cpu());
  c10::Dict<std::string, at::Tensor> optim;
  const auto params = s.orderedParams();
  auto& state = s.optimizer->state();
  for (size_t i = 0; i < params.size(); ++i) {
    auto it = state.find(c10::guts::to_string(params[i].unsafeGetTensorImpl()));
    if (it == state.end()) continue;
    auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
    optim.insert("exp_avg." + s.paramNames[i], st.exp_avg().cpu());
    optim.insert("exp_avg_sq." + s.paramNames[i], st.exp_avg_sq().cpu());
    optim.insert("step." + s.paramNames[i], torch::tensor(static_cast<int64_t>(st.step())));
  }
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("format", std::string(kCheckpointFormat));
  dict.insert("config", nlohmann::json(s.cfg).dump());
  dict.insert("step", static_cast<int64_t>(s.step));
  dict.insert("model", weights);
  dict.insert("optimizer", optim);
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
  writeFileAtomically(path, [&](std::ostream& os) { os.write(bytes.data(), bytes.size()); });
}

std::unique_ptr<Trainer> Trainer::fromCheckpoint(const std::string& path) {
  const std::string data = readInputFile(path, "checkpoint", kMaxCheckpointBytes);
  const std::vector<char> bytes(data.begin(), data.end());
  c10::IValue root;
  try {
    root = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    throw Error("checkpoint " + path + " is not a PosLab checkpoint (unreadable)");
  }
  if (!root.isGenericDict()) throw Error("checkpoint " + path + " is not a PosLab checkpoint");
  auto dict = root.toGenericDict();
  if (!dict.contains("format") || dict.at("format").toStringRef() != kCheckpointFormat)
    throw Error("checkpoint " + path + " has an unknown format");
  TrainConfig cfg;
  try {
    cfg = nlohmann::json::parse(dict.at("config").toStringRef()).get<TrainConfig>();
  } catch (const std::exception& e) {  // JSON syntax, a strict-reader error, a non-string
    throw Error("checkpoint " + path + " has a malformed config: " + e.what());
  }
  // What the run needs on this machine (its text file, its device), naming the checkpoint.
  checkTrainable(cfg, JsonPath{"checkpoint '" + path + "'", "config"});
  auto trainer = std::make_unique<Trainer>(cfg);
  State& s = *trainer->s_;
  auto weights = c10::impl::toTypedDict<std::string, at::Tensor>(dict.at("model").toGenericDict());
  torch::NoGradGuard noGrad;
  for (auto& p : s.model->named_parameters()) {
    if (!weights.contains(p.key())) throw Error("checkpoint " + path + " lacks " + p.key());
    p.value().copy_(weights.at(p.key()));
  }
  for (auto& b : s.model->named_buffers())
    if (weights.contains(b.key())) b.value().copy_(weights.at(b.key()));
  auto optim =
      c10::impl::toTypedDict<std::string, at::Tensor>(dict.at("optimizer").toGenericDict());
  const auto params = s.orderedParams();
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& name = s.paramNames[i];
    if (!optim.contains("exp_avg." + name)) continue;
    auto st = std::make_unique<torch::optim::AdamWParamState>();
    st->step(optim.at("step." + name).item<int64_t>());
    st->exp_avg(optim.at("exp_avg." + name).to(s.device).clone());
    st->exp_avg_sq(optim.at("exp_avg_sq." + name).to(s.device).clone());
    s.optimizer->state()[c10::guts::to_string(params[i].unsafeGetTensorImpl())] = std::move(st);
  }
  s.step = dict.at("step").toInt();
  return trainer;
}

}  // namespace poslab
