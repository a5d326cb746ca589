// Training setups small enough for milliseconds per step, shared by the UI tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "train/preset.h"

namespace poslab::ui::test {

// Indirect indexing, alphabet 16, offsets -2..2, T = 12 (evaluated at 12 and 15); d_model 32,
// 2 heads, batch 8, 1000 steps (tests pause or step long before), on the CPU.
inline poslab::ExperimentSpec tinyIndirectSetup(std::vector<std::string> families,
                                                long long layers = 2, uint64_t seed = 0,
                                                std::string name = "tiny-indirect") {
  poslab::ExperimentSpec e;
  e.name = std::move(name);
  e.families = std::move(families);
  e.seeds = {seed};
  poslab::TrainConfig& c = e.base;
  c.task.id = "indirect-indexing";
  c.task.options = {{"alphabet", 16}, {"max_offset", 2}};
  c.task.trainLength = 12;
  c.model.dModel = 32;
  c.model.heads = 2;
  c.model.layers = layers;
  c.optim.batch = 8;
  c.run.steps = 1000;
  c.run.seed = seed;
  c.run.evalLengths = {12, 15};
  c.run.evalEvery = 0;
  c.run.evalSequences = 8;
  c.run.device = "cpu";
  return e;
}

}  // namespace poslab::ui::test
