// Bounds on a training run that every front end shares (the GUI's spin boxes, the CLI's options,
// Trainer itself): past them a run keeps one core busy for days or needs more memory than a
// desktop has, so it is refused up front, naming the bound, instead of hanging.
#pragma once

#include <string>
#include <vector>

#include "train/train_config.h"

namespace poslab {

class Task;

constexpr long long kMaxTrainSteps = 1000000;  // optimisation steps of one run
constexpr long long kMinTrainLength = 2;       // training sequence length T (tokens), both ends
constexpr long long kMaxTrainLength = 65536;
// Both are enforced by TrainConfig::validate() (the key table in train_config.cpp).

// Evaluation at length T costs, per sequence, the forward pass of limits/work_budget.h's
// forwardCost (per layer and token: the causal products over T keys, the projections and the MLP;
// the output head) and a fixed cost per token besides (sampling the task, the loss, the
// bookkeeping of a batch), and it holds (B, H, T, min(T, 1024)) float32 scores
// plus the (B, T, V) logits, B = max(1, eval_tokens_per_batch / T). These budgets keep one
// evaluation, over all its lengths, under a few minutes of a 2-core CPU (measured: 1.4e11
// multiply-adds take 15-54 s) and under 4 GiB of memory. On a CUDA device (run.device "cuda", or
// "auto" where CUDA is present) the work budget is 250x larger: a GPU does a CPU's minutes of work
// in about a second, and the papers' own evaluations (kv-retrieval-paper: 1.4e14 at 8192 tokens)
// are meant for one.
constexpr double kEvalWorkBudget = 2e12;                 // multiply-adds per evaluation, CPU
constexpr double kEvalWorkBudgetCuda = 5e14;             // the same on a CUDA device
constexpr double kEvalMemoryBudget = 4.0 * (1LL << 30);  // bytes
// The work budget of a run on `device` ("auto", "cpu" or "cuda"; "auto" is CUDA where present).
double evaluationWorkBudget(const std::string& device);

struct EvalCost {
  double work = 0;   // multiply-adds
  double bytes = 0;  // peak working memory, estimated
};
EvalCost evaluationCost(const ModelConfig& model, long long vocab, long long length,
                        long long sequences, long long tokensPerBatch);

// Passes an evaluation makes over its sequences at `length`: one, plus one per distance point of
// a task that reports accuracy against distance (kv-retrieval).
long long evaluationPasses(const Task& task, long long length);

// Throws InvalidArgument when evaluating `length` with `sequences` sequences (passes included)
// would exceed kEvalWorkBudget or kEvalMemoryBudget; the message names the length and the budget.
void checkEvaluationFits(const TrainConfig& config, long long vocab, long long length,
                         long long sequences);

// The whole evaluation: every length of `lengths` with `sequences` sequences each (and the passes
// of `task`), summed against the work budget after each length has passed checkEvaluationFits.
// Throws InvalidArgument naming the lengths, the sequences, the estimate and the budget.
void checkEvaluationTotalFits(const TrainConfig& config, const Task& task,
                              const std::vector<long long>& lengths, long long sequences);

// A training step at length T materialises, per layer, the (B, H, T, T) attention scores and
// their softmax, kept for the backward pass with their gradient, plus the activations, the
// (B, T, V) logits and the weights with their gradients and AdamW moments (4 float32 copies). Past
// this budget a run would exhaust a desktop's memory (T = 65536 needs 16 GiB per (1, 1, T, T)).
constexpr double kTrainMemoryBudget = 8.0 * (1LL << 30);  // bytes
// Parameters of the model (embedding, blocks, output head), as TinyTransformer builds them.
double modelParameterCount(const ModelConfig& model, long long vocab);
// Peak working memory of one training step at the longest training length, estimated.
double trainingStepBytes(const TrainConfig& config, long long vocab);
// Throws InvalidArgument when trainingStepBytes exceeds kTrainMemoryBudget; the message names the
// train length, the batch and the budget.
void checkTrainingFits(const TrainConfig& config, long long vocab);

// The whole run (steps x batch x length, and its evaluations): each step's forward and backward
// passes (3 x limits/work_budget.h's forwardCost of `batch` sequences at the longest training
// length), what every token costs besides (as an evaluation's), the optimiser's update (about 20
// operations per parameter), and every evaluation the run makes (evalEvery; the last step's
// always) over all its lengths. The training tab's setup is held to these budgets when Play is
// pressed: a run of days is refused there, naming the steps, the batch and the length. The CLI's
// train and run are not: they print progress with an ETA, stop at SIGINT and resume.
constexpr double kTrainWorkBudget = 5e14;         // multiply-adds of one run, CPU: about a day
constexpr double kTrainWorkBudgetCuda = 1.25e17;  // the same, x250, on a CUDA device
double trainingWorkCost(const TrainConfig& config, const Task& task);
// The same estimate by parts, as a sweep's progress weighs its ETA with it (an evaluation of
// minutes at a paper's lengths counts as what it is, not as nothing): multiply-adds of one
// training step and of one evaluation over all its lengths (passes included), and when the run
// evaluates (after every evalEvery steps and after the last). trainingWorkCost is total().
struct RunWork {
  double perStep = 0;        // multiply-adds
  double perEvaluation = 0;  // multiply-adds
  long long steps = 0;
  long long evalEvery = 0;
  long long evaluations() const;
  long long evaluationsAfter(long long stepsDone) const;  // at steps <= stepsDone
  double total() const;
};
RunWork runWork(const TrainConfig& config, const Task& task);
// runWork of a planned run from its task's outline (nothing read); no work (zeros) when its task
// cannot be built. Never throws.
RunWork plannedRunWork(const TrainConfig& config);
// Throws InvalidArgument when trainingWorkCost exceeds the budget of config's device (times
// limits/work_budget.h's scale); the message names the steps, the batch, the length, the estimate
// and the budget.
void checkTrainingWorkFits(const TrainConfig& config, const Task& task);

// The one check of a run the training tab would start, whichever way it starts or grows (Play,
// Step, values changed while paused, a preset, session or lesson step loaded, checkpoints
// continued) and that `poslab-cli lesson FILE` makes of a lesson's training steps: a training
// step's memory, the evaluation at each length and at all of them, and the whole run. Never
// throws: empty when `config` fits (or its task cannot be built: building the run says what is
// wrong); else one line naming the form's controls, then the estimate and the budget: "steps,
// batch and train length: 1000000 steps of batch 8 at length 1024 need about 9e+14 multiply-adds,
// over the budget of 5e+14 on a CPU (...)". Reads no data (makeTaskOutline: a byte-lm corpus is
// only sized), so the window may ask it on its UI thread.
std::string trainingRunBudgetProblem(const TrainConfig& config);

}  // namespace poslab
