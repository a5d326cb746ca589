// Issue #15: the distributed launch read from torchrun's and Slurm's variables, and Slurm's
// host lists expanded; a partial or malformed environment is one InvalidArgument naming the
// variable. Expected values written from the launchers' documentation, not from the code.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dist/dist_env.h"
#include "util/error.h"

namespace poslab::dist {
namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

// The message of readDistEnv's InvalidArgument, or "" when it does not throw.
std::string errorOfInDistEnv(const FakeEnv& e) {
  try {
    readDistEnv(e.lookup());
  } catch (const InvalidArgument& ex) {
    return ex.what();
  }
  return "";
}

// One process per GPU: the local rank picks the device, wrapping when there are more processes
// than GPUs; one process alone, a malformed launch and a machine without GPUs give device 0.
TEST(DistEnv, LocalRankPicksTheCudaDevice) {
  const FakeEnv torchrun{{{"RANK", "3"},
                          {"WORLD_SIZE", "4"},
                          {"LOCAL_RANK", "1"},
                          {"LOCAL_WORLD_SIZE", "2"},
                          {"MASTER_ADDR", "node01"},
                          {"MASTER_PORT", "29500"}}};
  EXPECT_EQ(localCudaDevice(2, torchrun.lookup()), 1);
  EXPECT_EQ(localCudaDevice(8, torchrun.lookup()), 1);
  EXPECT_EQ(localCudaDevice(1, torchrun.lookup()), 0);
  EXPECT_EQ(localCudaDevice(0, torchrun.lookup()), 0);
  const FakeEnv slurm{{{"SLURM_PROCID", "5"},
                       {"SLURM_NTASKS", "8"},
                       {"SLURM_LOCALID", "3"},
                       {"SLURM_NTASKS_PER_NODE", "4"},
                       {"MASTER_ADDR", "node02"},
                       {"SLURM_JOB_ID", "77"}}};
  EXPECT_EQ(localCudaDevice(4, slurm.lookup()), 3);
  EXPECT_EQ(localCudaDevice(2, slurm.lookup()), 1);
  EXPECT_EQ(localCudaDevice(4, FakeEnv{}.lookup()), 0);
  EXPECT_EQ(localCudaDevice(4, FakeEnv{{{"RANK", "1"}}}.lookup()), 0);  // no WORLD_SIZE
}

TEST(DistEnv, NoVariablesIsOneProcess) {
  EXPECT_FALSE(readDistEnv(FakeEnv{}.lookup()).has_value());
}

TEST(DistEnv, WorldOfOneIsNotDistributed) {
  EXPECT_FALSE(readDistEnv(FakeEnv{{{"RANK", "0"}, {"WORLD_SIZE", "1"}}}.lookup()).has_value());
  EXPECT_FALSE(
      readDistEnv(FakeEnv{{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}}.lookup()).has_value());
}

TEST(DistEnv, TorchrunVariables) {
  FakeEnv e{{{"RANK", "3"},
             {"WORLD_SIZE", "4"},
             {"LOCAL_RANK", "1"},
             {"LOCAL_WORLD_SIZE", "2"},
             {"MASTER_ADDR", "10.0.0.5"},
             {"MASTER_PORT", "29500"}}};
  auto d = readDistEnv(e.lookup());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 3);
  EXPECT_EQ(d->worldSize, 4);
  EXPECT_EQ(d->localRank, 1);
  EXPECT_EQ(d->localWorldSize, 2);
  EXPECT_EQ(d->masterAddr, "10.0.0.5");
  EXPECT_EQ(d->masterPort, 29500);
  EXPECT_EQ(d->launcher, "torchrun");
}

// torchrun's agent hosts the store itself; keys are kept apart per run and restart.
TEST(DistEnv, TorchrunAgentStore) {
  FakeEnv e{{{"RANK", "1"},
             {"WORLD_SIZE", "2"},
             {"MASTER_ADDR", "127.0.0.1"},
             {"MASTER_PORT", "29500"},
             {"TORCHELASTIC_USE_AGENT_STORE", "True"},
             {"TORCHELASTIC_RUN_ID", "job7"},
             {"TORCHELASTIC_RESTART_COUNT", "2"}}};
  auto d = readDistEnv(e.lookup());
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->launcherHostsStore);
  EXPECT_EQ(d->storePrefix, "poslab/job7/2/");
  e.vars.erase("TORCHELASTIC_USE_AGENT_STORE");
  d = readDistEnv(e.lookup());
  EXPECT_FALSE(d->launcherHostsStore);
  EXPECT_EQ(d->storePrefix, "poslab/");
}

TEST(DistEnv, PartialOrMalformedNamesTheVariable) {
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"RANK", "0"}}}).find("WORLD_SIZE is not set"),
            std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"WORLD_SIZE", "2"}}}).find("RANK is not set"),
            std::string::npos);
  EXPECT_NE(
      errorOfInDistEnv(
          FakeEnv{{{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}})
          .find("RANK='x' is not a whole number"),
      std::string::npos);
  EXPECT_NE(
      errorOfInDistEnv(FakeEnv{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29500"}}})
          .find("MASTER_ADDR is not set"),
      std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}})
                .find("MASTER_PORT is not set"),
            std::string::npos);
  EXPECT_NE(
      errorOfInDistEnv(
          FakeEnv{{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}})
          .find("RANK=2 is not below WORLD_SIZE=2"),
      std::string::npos);
  EXPECT_NE(
      errorOfInDistEnv(
          FakeEnv{
              {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}}})
          .find("MASTER_PORT=70000 is outside"),
      std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"RANK", "-1"}, {"WORLD_SIZE", "2"}}}).find("RANK='-1'"),
            std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"RANK", "0"}, {"WORLD_SIZE", "99999999999999999999"}}})
                .find("WORLD_SIZE"),
            std::string::npos);
}

TEST(DistEnv, SlurmTakesTheFirstNodeAndAJobPort) {
  FakeEnv e{{{"SLURM_PROCID", "5"},
             {"SLURM_NTASKS", "8"},
             {"SLURM_LOCALID", "1"},
             {"SLURM_NTASKS_PER_NODE", "2(x4)"},
             {"SLURM_JOB_NODELIST", "gpu[07-10]"},
             {"SLURM_JOB_ID", "123456"}}};
  auto d = readDistEnv(e.lookup());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 5);
  EXPECT_EQ(d->worldSize, 8);
  EXPECT_EQ(d->localRank, 1);
  EXPECT_EQ(d->localWorldSize, 2);
  EXPECT_EQ(d->masterAddr, "gpu07");
  EXPECT_EQ(d->masterPort, 20000 + 123456 % 20000);  // 23456
  EXPECT_EQ(d->launcher, "slurm");
}

TEST(DistEnv, SlurmMasterVariablesWinAndTorchrunWinsOverSlurm) {
  FakeEnv e{{{"SLURM_PROCID", "1"},
             {"SLURM_NTASKS", "2"},
             {"SLURM_JOB_NODELIST", "n[1-2]"},
             {"MASTER_ADDR", "login"},
             {"MASTER_PORT", "4000"}}};
  auto d = readDistEnv(e.lookup());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->masterAddr, "login");
  EXPECT_EQ(d->masterPort, 4000);
  e.vars["RANK"] = "0";
  e.vars["WORLD_SIZE"] = "3";
  d = readDistEnv(e.lookup());
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->launcher, "torchrun");
  EXPECT_EQ(d->rank, 0);
  EXPECT_EQ(d->worldSize, 3);
}

TEST(DistEnv, SlurmWithoutNodesOrPortNamesTheVariable) {
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}})
                .find("SLURM_JOB_NODELIST is not set"),
            std::string::npos);
  EXPECT_NE(
      errorOfInDistEnv(
          FakeEnv{{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "a"}}})
          .find("SLURM_JOB_ID is not set"),
      std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"SLURM_PROCID", "0"}}}).find("SLURM_NTASKS is not set"),
            std::string::npos);
  EXPECT_NE(errorOfInDistEnv(FakeEnv{{{"SLURM_PROCID", "0"},
                                      {"SLURM_NTASKS", "2"},
                                      {"SLURM_JOB_NODELIST", "r[1-2]-n[1-2]"},
                                      {"SLURM_JOB_ID", "1"}}})
                .find("SLURM_JOB_NODELIST"),
            std::string::npos);
}

using Hosts = std::vector<std::string>;

TEST(SlurmNodeList, ExpandsTheSimpleForms) {
  EXPECT_EQ(expandNodeList("node01"), Hosts({"node01"}));
  EXPECT_EQ(expandNodeList("node[01-04]"), Hosts({"node01", "node02", "node03", "node04"}));
  EXPECT_EQ(expandNodeList("gpu[1,3,5-6]"), Hosts({"gpu1", "gpu3", "gpu5", "gpu6"}));
  EXPECT_EQ(expandNodeList("a1,b[2-3],c"), Hosts({"a1", "b2", "b3", "c"}));
  EXPECT_EQ(expandNodeList("n[8-10]"), Hosts({"n8", "n9", "n10"}));
  EXPECT_EQ(expandNodeList("n[098-100]"), Hosts({"n098", "n099", "n100"}));
  EXPECT_EQ(expandNodeList("rack[1-2]-ib"), Hosts({"rack1-ib", "rack2-ib"}));
}

TEST(SlurmNodeList, RefusesWhatItDoesNotSupport) {
  for (const char* bad : {"", "n[1-2", "n1-2]", "n[a-b]", "n[3-1]", "a,,b", "a,", "r[1-2]-n[1-2]",
                          "n[[1]]", "n[0-99999999]"})
    EXPECT_THROW(expandNodeList(bad), InvalidArgument) << bad;
}

}  // namespace
}  // namespace poslab::dist
