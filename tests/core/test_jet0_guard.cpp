// The jet mix with a learned c_0 (jordan-m4-jetmix-full, the reference's jetmixfull): the query
// side's inverse jet divides by c_0 (MATH 1.7.9), as the reference code does without a guard, so a
// c_0 that training moves within 1e-3 of zero ends the run as a divergence naming the head and
// block, instead of training on features scaled by 1e3 to 1e12. A c_0 at 2e-3 still trains.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "train/trainer.h"

namespace poslab {
namespace {

TrainConfig jetMixRun() {
  TrainConfig c;
  c.model.family = "jordan-m4-jetmix-full";
  c.model.heads = 2;
  c.model.layers = 1;
  c.model.dModel = 32;
  c.task.id = "kernel-lm";
  c.task.trainLength = 16;
  c.optim.batch = 4;
  c.run.steps = 3;
  c.run.evalLengths = {16};
  c.run.evalSequences = 4;
  return c;
}

// Sets c_0 = jet_max tanh(raw) of head 1, block 1 of every layer to `c0` (jet_max 2).
void setJet0(Trainer& trainer, double c0) {
  torch::NoGradGuard guard;
  int found = 0;
  for (const std::string& name : trainer.parameterNames()) {
    if (name.find("jet0_raw") == std::string::npos) continue;
    trainer.parameter(name)[1][1] = std::atanh(c0 / 2.0);
    ++found;
  }
  ASSERT_GT(found, 0) << "jordan-m4-jetmix-full has no jet0_raw";
}

TEST(Jet0Guard, ALearnedC0NearZeroEndsTheRunNamingHeadAndBlock) {
  Trainer trainer(jetMixRun());
  trainer.step();
  setJet0(trainer, 5e-4);
  try {
    trainer.step();
    ADD_FAILURE() << "a c_0 of 5e-4 trained";
  } catch (const DivergedError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("diverged at step 1"), std::string::npos) << what;
    EXPECT_NE(what.find("c_0 of head 1, block 1"), std::string::npos) << what;
  }
  EXPECT_EQ(trainer.stepCount(), 1);
}

TEST(Jet0Guard, ANegativeC0NearZeroIsRefusedToo) {
  Trainer trainer(jetMixRun());
  setJet0(trainer, -1e-4);
  EXPECT_THROW(trainer.step(), DivergedError);
}

TEST(Jet0Guard, AC0AboveTheBoundStillTrains) {
  Trainer trainer(jetMixRun());
  setJet0(trainer, 2e-3);
  EXPECT_NO_THROW(trainer.step());
  EXPECT_EQ(trainer.stepCount(), 1);
}

}  // namespace
}  // namespace poslab
