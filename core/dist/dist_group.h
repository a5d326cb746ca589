// The processes of one distributed launch, on PyTorch's own runtime (c10d): a TCPStore hosted by
// rank 0 for rendezvous, results and liveness, and a Gloo process group (NCCL in a CUDA build,
// see dist_group.cpp) for the gradient all-reduce of data-parallel training. torch and c10d stay
// in dist_group.cpp (pimpl); this header only forward-declares at::Tensor.
//
// Faults: every rank bumps a heartbeat counter in the store once a second from its own thread
// and watches the others'. A rank whose counter has not moved for `timeout`, a rank that posted
// a failure, or a store that cannot be reached (rank 0 gone) makes checkPeers() and every wait
// below throw an Error naming that rank. The Gloo collectives and the store connection use the
// same timeout. So a dead rank stops the others within about `timeout` seconds, never hangs
// them, while a rank that is merely busy (a long run, rank 0's evaluation) keeps its heartbeat.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dist/dist_env.h"

namespace at {
class Tensor;
}

namespace poslab::dist {

// --dist-timeout's default: long enough for a loaded machine's hiccups, short enough to notice.
constexpr int kDefaultTimeoutSeconds = 60;

class DistGroup {
 public:
  // Connects to rank 0's store (rank 0 creates it on env.masterPort), waits until every rank has
  // joined, then starts the heartbeat. Throws Error naming the ranks missing after `timeout`, or
  // the store that cannot be reached.
  static std::unique_ptr<DistGroup> connect(const DistEnv& env, std::chrono::seconds timeout);
  ~DistGroup();
  DistGroup(const DistGroup&) = delete;
  DistGroup& operator=(const DistGroup&) = delete;

  int rank() const;
  int worldSize() const;
  const DistEnv& env() const;
  std::chrono::seconds timeout() const;

  // Throws Error naming the first rank known to have failed or stopped responding.
  void checkPeers() const;
  // Rank 0 publishes `value` under `what`; every other rank compares its own value with it and
  // throws Error (naming itself and `what`) when they differ: all ranks must run the same setup.
  void agree(const std::string& what, const std::string& value);
  // A value in the store, for any rank to read.
  void publish(const std::string& key, const std::string& value);
  // The value of `key`, waiting as long as rank `owner` (who publishes it) is alive.
  std::string await(const std::string& key, int owner);
  // True when `key` has been published.
  bool has(const std::string& key);
  // Every rank arrives before any leaves; a dead rank makes it throw.
  void barrier(const std::string& tag);
  // Sums each tensor in place over the ranks (a Gloo all-reduce, one per tensor, all in flight at
  // once; created on the first call, which every rank must make). Throws Error after `timeout`
  // or when a peer is lost.
  void allReduceSum(std::vector<at::Tensor>& tensors);

  // Tells the others this rank failed (best effort; they stop with `message`).
  void reportFailure(const std::string& message);
  // A clean end: this rank is done. Rank 0 waits until every rank has left before its store goes.
  void leave();

 private:
  struct State;
  explicit DistGroup(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace poslab::dist
