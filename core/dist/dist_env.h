// Where this process sits in a distributed launch, read from the standard environment (no torch).
//
// Supported launchers, in this order of precedence:
//  1. torchrun (or anything that sets the same variables): RANK, WORLD_SIZE, MASTER_ADDR,
//     MASTER_PORT, and LOCAL_RANK / LOCAL_WORLD_SIZE (optional: 0 and 1 when absent). Used when
//     RANK or WORLD_SIZE is set.
//  2. Slurm (`srun`): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID; the master is MASTER_ADDR if set,
//     else the first host of SLURM_JOB_NODELIST (or SLURM_NODELIST); the port is MASTER_PORT if
//     set, else 20000 + SLURM_JOB_ID % 20000 (the same for every task of one job). Used when
//     SLURM_PROCID is set and RANK/WORLD_SIZE are not.
// A world of one process (no variables, WORLD_SIZE=1, SLURM_NTASKS=1) is not distributed: nothing
// is created and PosLab behaves as it always has.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace poslab::dist {

struct DistEnv {
  int rank = 0;             // this process, 0 .. worldSize-1 (rank 0 hosts the store, reports)
  int worldSize = 1;        // processes in the job, e.g. 2
  int localRank = 0;        // this process on its machine, e.g. 1 (picks a CUDA device)
  int localWorldSize = 1;   // processes on this machine, e.g. 2 (shares the cores between them)
  std::string masterAddr;   // rank 0's host, e.g. "127.0.0.1" or "node01"
  uint16_t masterPort = 0;  // rank 0's store port, e.g. 29500
  std::string launcher;     // "torchrun" or "slurm", for messages
  // torchrun's agent hosts a TCPStore on MASTER_PORT itself (TORCHELASTIC_USE_AGENT_STORE=True):
  // then every rank is a client of it, and keys are prefixed by the run id and restart count.
  bool launcherHostsStore = false;
  std::string storePrefix = "poslab/";  // e.g. "poslab/<TORCHELASTIC_RUN_ID>/<restart>/"
};

// Reads a variable; nullptr when unset. The default reads the process environment.
using EnvLookup = std::function<const char*(const char*)>;

// The launch this process is part of, or nullopt for one process alone. Throws InvalidArgument
// (one line naming the variable) for a partial or malformed environment: RANK without
// WORLD_SIZE, a non-numeric or out-of-range value, rank >= world size, no master address.
std::optional<DistEnv> readDistEnv(const EnvLookup& env = {});

// The CUDA device this process trains on when a machine has `deviceCount` of them: its local rank
// modulo the count under a distributed launch (torchrun's one process per GPU, LOCAL_RANK;
// Slurm's SLURM_LOCALID), else 0. A malformed launch environment also gives 0 (the CLI refuses it
// before any model is built, naming the variable). deviceCount < 1 gives 0.
int localCudaDevice(int deviceCount, const EnvLookup& env = {});

// Expands a Slurm host list: "node[01-04]" -> node01 node02 node03 node04 (the width of a range's
// lower bound is kept), "gpu[1,3,5-6]", "a1,b[2-3],c" and plain names. One bracket per name;
// "rack[1-2]-n[1-2]" (two brackets) and a name longer than a list of 65536 hosts are refused with
// InvalidArgument naming SLURM_JOB_NODELIST.
std::vector<std::string> expandNodeList(const std::string& list);

}  // namespace poslab::dist
