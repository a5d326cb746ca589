// Sector-teacher task (PJ-RoPE paper's synthetic query LM; docs/MATH.md 3.4). Kernels in
// sector_teacher.h.
//
// What the reference does (ybzhang-nxu/Poincare_Rope, experiments/synthetic_query_lm.py:
// sample_batch, teacher_coefficients, teacher_kernel_by_position), and so this task:
//   Layout, length T:  bit_0 .. bit_{T-2}  QUERY      vocab 3: bits 0, 1; QUERY = 2
//   x_t = 2 bit_t - 1 (token 1 is the bit +1). The bit at position t has lag d = T-1-t, so the
//   lags run T-1, ..., 1 from the first bit to the last; the QUERY itself has no weight.
//   K(d) is evaluated at those T-1 lags with x = d/L and omega = 2 pi cycles / L where L is the
//   TRAINING length, also when T is an evaluation length (the reference passes train_len).
//   Teacher (option "teacher"), "over the bits" meaning over those T-1 positions at this length:
//     1  attention (the reference default): c_d = softmax_d(lambda K(d)), lambda = 4
//        (--attention-lambda; option "attention_lambda")
//     0  signed: c_d = K(d) / max(||K||, eps), ||K|| the L2 norm over the same T-1 lags
//   score = sum_d c_d x_{T-1-d}; label at T-1: 1[score > 0]; -1 elsewhere; answer only at T-1.
//   Reference defaults: target recency_weak_jet, teacher attention, omega 2 pi 17 / L, lambda 4,
//   train length 96, evaluation lengths 96 and 192.
//   Option median_threshold 1 (the reference's --median-threshold): the label is 1[score > m] with
//   m the batch's median score (torch's median: the lower middle value of an even count), so each
//   batch is balanced; the label then depends on the batch the example is drawn in.
// PosLab differences: float64 instead of the reference's float32; an exact tie (|score| <= 1e-12
// sum_d |c_d|) is labelled 0 on every build (the reference's score > 0 is also 0 for an exact
// zero). T in [2, 2^20].
// Options: omega (< 0: the teacher's default), teacher (0 or 1, default 1), attention_lambda
// (> 0, default 4), L (default trainLength), median_threshold (0 or 1, default 0).
#include "tasks/sector_teacher.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0004ULL;
constexpr double kAttentionLambda = 4;   // the reference's --attention-lambda: softmax(4 K)
constexpr double kReferenceCycles = 17;  // the reference's --omega-cycles
constexpr double kPoslabPeriods = 4;     // the poslab- variants' default: 4 periods over L
constexpr double kNormFloor = 2.220446049250313e-16;  // the reference's clamp_min(finfo.eps)

const std::vector<std::string>& referenceTeachers() {
  static const std::vector<std::string> names = {"phase",     "first_jet", "second_jet",
                                                 "third_jet", "affine",    "recency_weak_jet",
                                                 "lc_core",   "lc_affine"};
  return names;
}

const std::vector<std::string>& poslabTeachers() {
  static const std::vector<std::string> names = {"poslab-jet2",   "poslab-jet3",
                                                 "poslab-affine", "poslab-recency",
                                                 "poslab-lc",     "poslab-lc-affine"};
  return names;
}

bool isReferenceTeacher(const std::string& name) {
  const auto& r = referenceTeachers();
  return std::find(r.begin(), r.end(), name) != r.end();
}

void checkTeacherName(const std::string& name) {
  const auto names = sectorTeacherNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown sector teacher '" + name + "'", "known teachers: " + list);
}

class SectorTeacherTask : public Task {
 public:
  explicit SectorTeacherTask(const TaskConfig& config) : teacher_(config.kernel) {
    checkTeacherName(teacher_);
    if (config.trainLength < 2)
      throw InvalidArgument("sector-teacher: trainLength " + std::to_string(config.trainLength) +
                            " must be at least 2");
    // The kernels' context scale L defaults to the training length; a smaller L makes the
    // window reach past it, where the light-cone chart's log-compressed phase differs from FJ's.
    const TaskOptions opts("sector-teacher", config.options,
                           {{"omega", -1},
                            {"teacher", 1},
                            {"attention_lambda", kAttentionLambda},
                            {"L", static_cast<double>(config.trainLength)},
                            {"median_threshold", 0}});
    L_ = opts.get("L");
    if (!(L_ >= 1)) throw InvalidArgument("sector-teacher: option L must be >= 1");
    omega_ = opts.get("omega") < 0 ? defaultTeacherOmega(teacher_, L_) : opts.get("omega");
    softmax_ = opts.getInt("teacher", 0, 1) == 1;
    lambda_ = opts.getReal("attention_lambda", 1e-12, 1e12);
    medianThreshold_ = opts.getInt("median_threshold", 0, 1) == 1;
  }

  std::string id() const override { return "sector-teacher"; }
  long long vocabSize() const override { return 3; }
  long long answerTokenCount() const override { return 2; }  // the labels are bits 0 and 1
  long long minLength() const override { return 2; }
  long long maxLength() const override { return kMaxTaskLength; }

  std::vector<double> targetKernel(long long length) const override {
    std::vector<double> k(std::max<long long>(length, 1), 0.0);
    for (long long d = 1; d < length; ++d)
      k[d] = sectorTeacherKernel(teacher_, omega_, L_, static_cast<double>(d));
    return k;
  }

  std::vector<double> teacherAttention(long long length) const override {
    // softmax_d(lambda K(d)) over d = 1..T-1, max-shifted.
    std::vector<double> weights = targetKernel(length);
    double m = -HUGE_VAL, z = 0;
    for (long long d = 1; d < length; ++d) m = std::max(m, lambda_ * weights[d]);
    for (long long d = 1; d < length; ++d) z += weights[d] = std::exp(lambda_ * weights[d] - m);
    for (long long d = 1; d < length; ++d) weights[d] /= z;
    return weights;
  }

  std::vector<double> labelWeights(long long length) const override {
    // weights[d], d = 1..T-1: softmax_d(lambda K(d)) (max-shifted), or K(d) / ||K|| over the
    // same lags.
    if (softmax_) return teacherAttention(length);
    std::vector<double> weights = targetKernel(length);
    double ss = 0;
    for (long long d = 1; d < length; ++d) ss += weights[d] * weights[d];
    const double norm = std::max(std::sqrt(ss), kNormFloor);
    for (double& w : weights) w /= norm;
    return weights;
  }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    checkSampleArgs(*this, batch, length);  // before labelWeights allocates length entries
    const std::vector<double> weights = labelWeights(length);
    Batch out =
        sampleBitsQueryBatch(*this, weights, /*stochastic=*/false, batch, length, seed, kSalt);
    if (medianThreshold_) relabelAtBatchMedian(out, weights, batch, length);
    return out;
  }

 private:
  // The median-threshold labels: score_b = sum_d weights[d] x_{T-1-d} of each example, m the lower
  // median of the batch's scores, label 1[score_b > m] at the query.
  static void relabelAtBatchMedian(Batch& out, const std::vector<double>& weights, long long batch,
                                   long long length) {
    const int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    const long long q = length - 1;
    std::vector<double> scores(static_cast<size_t>(batch));
    for (long long b = 0; b < batch; ++b) {
      double score = 0;
      for (long long t = 0; t < q; ++t)
        score += (2.0 * static_cast<double>(tokens[b * length + t]) - 1.0) * weights[q - t];
      scores[b] = score;
    }
    std::vector<double> sorted = scores;
    const auto mid = sorted.begin() + (batch - 1) / 2;
    std::nth_element(sorted.begin(), mid, sorted.end());
    for (long long b = 0; b < batch; ++b) targets[b * length + q] = scores[b] > *mid ? 1 : 0;
  }

  std::string teacher_;
  double L_ = 96;
  double omega_ = 0;
  bool softmax_ = true;
  double lambda_ = kAttentionLambda;
  bool medianThreshold_ = false;
};

}  // namespace

std::vector<std::string> sectorTeacherNames() {
  std::vector<std::string> names = referenceTeachers();
  names.insert(names.end(), poslabTeachers().begin(), poslabTeachers().end());
  return names;
}

std::string sectorOfTeacher(const std::string& name) {
  checkTeacherName(name);
  if (name == "affine" || name == "recency_weak_jet" || name == "poslab-affine" ||
      name == "poslab-recency")
    return "affine";
  if (name == "lc_core" || name == "poslab-lc") return "LC";
  if (name == "lc_affine" || name == "poslab-lc-affine") return "LC+affine";
  return "FJ";
}

std::string preferredSectorOfTeacher(const std::string& name, bool attentionTeacher) {
  const std::string sector = sectorOfTeacher(name);  // checks the name
  if (sector == "LC" || sector == "LC+affine") return "lc";
  if (name == "recency_weak_jet") return attentionTeacher ? "affine" : "fj";
  return sector == "affine" ? "affine" : "fj";
}

long long preferredOrderOfTeacher(const std::string& name) {
  checkTeacherName(name);
  if (name == "first_jet") return 1;
  if (name == "second_jet" || name == "recency_weak_jet" || name == "poslab-jet2") return 2;
  if (name == "third_jet" || name == "poslab-jet3") return 3;
  return 0;
}

double defaultTeacherOmega(const std::string& name, double L) {
  checkTeacherName(name);
  return 2 * M_PI * (isReferenceTeacher(name) ? kReferenceCycles : kPoslabPeriods) / L;
}

double sectorTeacherKernel(const std::string& name, double omega, double L, double d) {
  const double x = d / L, c = std::cos(omega * d);
  if (name == "phase") return c;
  if (name == "first_jet") return x * c;
  if (name == "second_jet") return x * x * std::exp(-0.1 * x) * c;
  if (name == "third_jet") return x * x * x * std::exp(-0.1 * x) * c;
  if (name == "affine") return -0.4 * x;
  if (name == "recency_weak_jet") return -0.4 * x + 0.15 * x * x * c;
  // The light-cone chart (pjrope/torch_backend.py eta_l, phi_l, beta_l).
  const double eta = std::asinh(x), phi = L * eta, beta = d / std::sqrt(d * d + L * L);
  const double lcCore = std::cos(omega * phi) * (1 + 0.4 * beta + 0.2 * beta * beta);
  if (name == "lc_core") return lcCore;
  if (name == "lc_affine") return lcCore - 0.25 * eta;
  if (name == "poslab-jet2") return x * x / 2 * c;
  if (name == "poslab-jet3") return x * x * x / 6 * c;
  if (name == "poslab-affine") return -x;
  if (name == "poslab-recency") return -x + 0.25 * x * c;
  if (name == "poslab-lc") return std::cos(omega * phi);
  if (name == "poslab-lc-affine") return 0.5 * std::cos(omega * phi) - 0.5 * eta;
  checkTeacherName(name);
  return 0;  // unreachable: checkTeacherName threw
}

namespace {
constexpr const char* kDefaultTeacher = "recency_weak_jet";  // the PJ-RoPE reference's --target

std::vector<TaskOptionSpec> sectorTeacherOptionSpecs(const TaskConfig& c) {
  const double L = static_cast<double>(c.trainLength);
  const auto teachers = sectorTeacherNames();
  const bool known = std::find(teachers.begin(), teachers.end(), c.kernel) != teachers.end();
  TaskOptionSpec omega{"omega",
                       false,
                       0,
                       HUGE_VAL,
                       defaultTeacherOmega(known ? c.kernel : kDefaultTeacher, L),
                       true,
                       "teacher frequency (rad per position); default 2 pi 17 / L (poslab- "
                       "teachers: 2 pi 4 / L)"};
  omega.negativeMeansDefault = true;  // the constructor's {"omega", -1}
  return {
      omega,
      {"teacher", true, 0, 1, 1, false,
       "1: softmax(lambda K) attention teacher (the reference's default); 0: K / ||K||"},
      {"attention_lambda", false, 1e-12, 1e12, kAttentionLambda, false,
       "lambda of the attention teacher softmax(lambda K)"},
      {"L", false, 1, HUGE_VAL, L, true, "context scale of the teacher (default: train length)"}};
}

std::unique_ptr<Task> makeSectorTeacherTask(const TaskConfig& config) {
  return std::make_unique<SectorTeacherTask>(config);
}
}  // namespace

const TaskInfo& sectorTeacherTaskInfo() {
  static const TaskInfo info = [] {
    TaskInfo i;
    i.id = "sector-teacher";
    i.make = makeSectorTeacherTask;
    i.optionSpecs = sectorTeacherOptionSpecs;
    i.kernelChoices = sectorTeacherNames();
    i.defaultKernel = kDefaultTeacher;
    i.kernelLabel = "teacher";
    i.kernelHelp = "Teacher kernel: its sector is what PJ-bias should learn";
    i.kernelIsSectorTeacher = true;
    i.capabilities.lagResponse = true;
    i.capabilities.teacherAttention = true;
    return i;
  }();
  return info;
}

}  // namespace poslab
