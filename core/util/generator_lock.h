// The lock on torch's process-wide random generator.
#pragma once

#include <mutex>

namespace poslab {

// Held while a run seeds torch's process-wide generator and draws its initial weights
// (train/trainer.cpp), and while anything else builds a position module (model/pin_check.cpp):
// a family's initial values may come from that generator (PJ-bias's zeta), and a draw from
// another thread must not interleave with a seeded run's.
std::mutex& torchGeneratorMutex();

}  // namespace poslab
