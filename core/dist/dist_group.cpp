// DistGroup on c10d. Debian's LibTorch 1.13 exports TCPStore and ProcessGroupGloo from
// libtorch_cpu.so (nm -D shows c10d::TCPStore::TCPStore and c10d::ProcessGroupGloo::allreduce);
// ProcessGroupGloo.hpp needs the Gloo headers (libgloo-dev) and USE_C10D_GLOO, which
// core/CMakeLists.txt sets for this file only. Without them (POSLAB_HAVE_GLOO 0) the store still
// works (sweeps) and allReduceSum says what is missing.
#include "dist/dist_group.h"

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if POSLAB_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if POSLAB_HAVE_NCCL  // a CUDA LibTorch with NCCL; untested here (no GPU on the build machine)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "util/error.h"
#include "util/torch_compat.h"

namespace poslab::dist {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> bytes(const std::string& s) {
  return {s.begin(), s.end()};
}
std::string text(const std::vector<uint8_t>& b) {
  return {b.begin(), b.end()};
}

// One line from any exception: c10's without its backtrace, newlines folded.
std::string oneLine(const std::exception& e) {
  const auto* c10e = dynamic_cast<const c10::Error*>(&e);
  std::string s = c10e ? c10e->what_without_backtrace() : e.what();
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string key(const std::string& kind, int rank) {
  return kind + "/" + std::to_string(rank);
}

// c10d logs every retried connect and failed bind through glog, on stderr, before PosLab can say
// what failed in one line. Raise glog's threshold to FATAL when glog is the logger (Debian's
// LibTorch); found by name, so that a LibTorch without glog needs nothing.
void quietC10dLogging() {
  if (auto* level = static_cast<int*>(dlsym(RTLD_DEFAULT, "_ZN3fLI17FLAGS_minloglevelE")))
    *level = 3;  // google::GLOG_FATAL
}

bool isLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

struct DistGroup::State {
  DistEnv env;
  std::chrono::seconds timeout{kDefaultTimeoutSeconds};
  std::chrono::milliseconds interval{1000};  // heartbeat period
  // This thread's client (rank 0: and the server, unless torchrun hosts it) and the heartbeat
  // thread's own connection, both under env.storePrefix.
  c10::intrusive_ptr<c10d::TCPStore> server;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Store> beatStore;
  c10::intrusive_ptr<compat::CollectiveBackend> collectives;  // created by the first allReduceSum

  std::thread beat;
  std::mutex mutex;  // guards the fields below
  std::condition_variable wake;
  bool stopping = false;
  std::string failure;          // the first fault seen; empty while all is well
  std::vector<bool> left;       // ranks that have left cleanly
  Clock::time_point lastRound;  // the heartbeat thread's last answered round
  std::atomic<bool> leftSelf{false};

  std::string where() const { return env.masterAddr + ":" + std::to_string(env.masterPort); }
  // Who hosts the store, for messages.
  std::string storeName() const {
    return (env.launcherHostsStore ? "torchrun's store at " : "rank 0's store at ") + where();
  }

  void fail(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failure.empty()) failure = message;
  }

  std::string currentFailure() {
    std::lock_guard<std::mutex> lock(mutex);
    if (failure.empty() && !stopping && Clock::now() - lastRound > timeout + interval * 2)
      failure = storeName() + " has not answered for " + std::to_string(timeout.count()) + " s";
    return failure;
  }

  // The heartbeat thread: bump ours, watch theirs (see the header).
  void heartbeat() {
    const int n = env.worldSize;
    std::vector<int64_t> lastCount(n, -1);
    std::vector<Clock::time_point> lastChange(n, Clock::now());
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
      std::vector<bool> gone = left;
      lock.unlock();
      std::string fault;
      try {
        beatStore->add(key("heartbeat", env.rank), 1);
        for (int p = 0; p < n && fault.empty(); ++p) {
          if (p == env.rank || gone[p]) continue;
          if (beatStore->check({key("left", p)})) {
            gone[p] = true;
            continue;
          }
          if (beatStore->check({key("failed", p)})) {
            fault =
                "rank " + std::to_string(p) + " failed: " + text(beatStore->get(key("failed", p)));
            break;
          }
          const int64_t count = beatStore->add(key("heartbeat", p), 0);
          const auto now = Clock::now();
          if (count != lastCount[p]) {
            lastCount[p] = count;
            lastChange[p] = now;
          } else if (now - lastChange[p] > timeout) {
            fault = "rank " + std::to_string(p) + " stopped responding: no heartbeat for " +
                    std::to_string(timeout.count()) +
                    " s (killed, or its machine cannot be reached)";
          }
        }
      } catch (const std::exception& e) {
        fault = env.rank == 0 && !env.launcherHostsStore
                    ? "the store failed: " + oneLine(e)
                    : (env.launcherHostsStore ? "" : "rank 0 cannot be reached: ") + storeName() +
                          " failed: " + oneLine(e);
      }
      lock.lock();
      for (int p = 0; p < n; ++p) left[p] = left[p] || gone[p];
      if (!fault.empty() && failure.empty()) failure = fault;
      if (fault.empty()) lastRound = Clock::now();
      wake.wait_for(lock, interval, [&] { return stopping; });
    }
  }

  void stopHeartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (beat.joinable()) beat.join();
  }

  void throwIfFailed() {
    const std::string f = currentFailure();
    if (!f.empty()) throw Error(f + " (seen by rank " + std::to_string(env.rank) + ")");
  }

  // Waits for `k`, checking the peers every 50 ms; with a deadline, throws `late` after it.
  void waitFor(const std::string& k, Clock::time_point deadline, const std::string& late) {
    while (true) {
      throwIfFailed();
      bool present = false;
      try {
        present = store->check({k});
      } catch (const std::exception& e) {
        throw Error("rank " + std::to_string(env.rank) + ": " + storeName() +
                    " cannot be reached: " + oneLine(e));
      }
      if (present) return;
      if (Clock::now() > deadline) throw Error(late);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
};

DistGroup::DistGroup(std::unique_ptr<State> s) : s_(std::move(s)) {}

DistGroup::~DistGroup() {
  s_->stopHeartbeat();
  s_->collectives.reset();
}

std::unique_ptr<DistGroup> DistGroup::connect(const DistEnv& env, std::chrono::seconds timeout) {
  quietC10dLogging();
  auto s = std::make_unique<State>();
  s->env = env;
  s->timeout = timeout;
  s->interval = std::clamp<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout) / 10,
      std::chrono::milliseconds(100), std::chrono::milliseconds(1000));
  s->left.assign(env.worldSize, false);
  const std::string me = "rank " + std::to_string(env.rank);
  c10d::TCPStoreOptions opts;
  opts.port = env.masterPort;
  opts.waitWorkers = false;  // the join below names the ranks that are missing
  opts.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  try {
    opts.isServer = env.rank == 0 && !env.launcherHostsStore;
    s->server = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, opts);
    s->store = c10::make_intrusive<c10d::PrefixStore>(env.storePrefix, s->server);
    opts.isServer = false;
    s->beatStore = c10::make_intrusive<c10d::PrefixStore>(
        env.storePrefix, c10::make_intrusive<c10d::TCPStore>(env.masterAddr, opts));
  } catch (const std::exception& e) {
    if (env.rank == 0 && !env.launcherHostsStore)
      throw Error(me + ": cannot host the store on " + s->where() + ": " + oneLine(e),
                  "is MASTER_PORT free, and MASTER_ADDR this machine?");
    throw Error(me + ": cannot reach " + s->storeName() + " within " +
                    std::to_string(timeout.count()) + " s: " + oneLine(e),
                "is rank 0 running, with the same MASTER_ADDR and MASTER_PORT?");
  }
  s->store->set(key("joined", env.rank), bytes("1"));
  const auto deadline = Clock::now() + timeout;
  s->lastRound = Clock::now();
  for (int r = 0; r < env.worldSize; ++r)
    while (!s->store->check({key("joined", r)}) && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::string missing;
  int missingCount = 0;
  for (int q = 0; q < env.worldSize; ++q)
    if (!s->store->check({key("joined", q)}) && ++missingCount <= 8)
      missing += (missing.empty() ? "" : ", ") + std::to_string(q);
  if (missingCount > 8) missing += " and " + std::to_string(missingCount - 8) + " more";
  if (!missing.empty())
    throw Error(me + ": rank(s) " + missing + " of " + std::to_string(env.worldSize) +
                    " did not join within " + std::to_string(timeout.count()) + " s",
                "start every rank with the same WORLD_SIZE, MASTER_ADDR and MASTER_PORT");
  State* raw = s.get();
  s->lastRound = Clock::now();
  s->beat = std::thread([raw] { raw->heartbeat(); });
  return std::unique_ptr<DistGroup>(new DistGroup(std::move(s)));
}

int DistGroup::rank() const {
  return s_->env.rank;
}
int DistGroup::worldSize() const {
  return s_->env.worldSize;
}
const DistEnv& DistGroup::env() const {
  return s_->env;
}
std::chrono::seconds DistGroup::timeout() const {
  return s_->timeout;
}

void DistGroup::checkPeers() const {
  s_->throwIfFailed();
}

void DistGroup::publish(const std::string& k, const std::string& value) {
  try {
    s_->store->set("data/" + k, bytes(value));
  } catch (const std::exception& e) {
    s_->throwIfFailed();
    throw Error("rank " + std::to_string(rank()) + ": cannot write to " + s_->storeName() + ": " +
                oneLine(e));
  }
}

bool DistGroup::has(const std::string& k) {
  return s_->store->check({"data/" + k});
}

std::string DistGroup::await(const std::string& k, int owner) {
  (void)owner;  // the heartbeat watches every rank, the owner among them
  s_->waitFor("data/" + k, Clock::time_point::max(), {});
  return text(s_->store->get("data/" + k));
}

void DistGroup::agree(const std::string& what, const std::string& value) {
  if (rank() == 0) return publish("agree/" + what, value);
  if (await("agree/" + what, 0) != value)
    throw Error("rank " + std::to_string(rank()) + " runs a different " + what + " than rank 0",
                "start every rank with the same command and files");
}

void DistGroup::barrier(const std::string& tag) {
  publish("barrier/" + tag + "/" + std::to_string(rank()), "1");
  for (int r = 0; r < worldSize(); ++r) await("barrier/" + tag + "/" + std::to_string(r), r);
}

void DistGroup::allReduceSum(std::vector<at::Tensor>& tensors) {
  s_->throwIfFailed();
  const std::string me = "rank " + std::to_string(rank());
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(s_->timeout);
  if (!s_->collectives) {
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("collectives", s_->store);
    try {
#if POSLAB_HAVE_NCCL
      if (!tensors.empty() && tensors.front().is_cuda()) {
        auto o = c10d::ProcessGroupNCCL::Options::create();
        o->timeout = ms;
        s_->collectives =
            c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rank(), worldSize(), o);
      }
#endif
#if POSLAB_HAVE_GLOO
      if (!s_->collectives) {
        auto o = c10d::ProcessGroupGloo::Options::create(ms);
        if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
          o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
        else if (isLoopback(s_->env.masterAddr))
          o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else
          o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        s_->collectives =
            c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rank(), worldSize(), o);
      }
#endif
    } catch (const std::exception& e) {
      s_->throwIfFailed();
      throw Error(me + ": cannot connect the Gloo process group: " + oneLine(e));
    }
    if (!s_->collectives)
      throw Error(me + ": this PosLab was built without Gloo, so it cannot all-reduce gradients",
                  "install libgloo-dev and rebuild (scripts/setup.sh does)");
  }
  try {
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    for (auto& t : tensors) {
      std::vector<at::Tensor> one{t};
      works.push_back(s_->collectives->allreduce(one));
    }
    for (auto& w : works) w->wait(ms);
  } catch (const std::exception& e) {
    // A dead peer shows in Gloo as a closed connection; the heartbeat may name it a moment later.
    const auto until = Clock::now() + s_->interval * 3;
    while (s_->currentFailure().empty() && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s_->throwIfFailed();
    throw Error(me + ": the gradient all-reduce failed: " + oneLine(e),
                "a peer rank died or could not be reached within " +
                    std::to_string(s_->timeout.count()) + " s");
  }
}

void DistGroup::reportFailure(const std::string& message) {
  try {
    s_->store->set(key("failed", rank()), bytes(message));
    // Rank 0's store goes with it: give the others a heartbeat or two to read the message.
    if (rank() == 0) std::this_thread::sleep_for(s_->interval * 3);
  } catch (const std::exception&) {
    // The store is gone already; the others see that instead.
  }
}

void DistGroup::leave() {
  if (rank() != 0) {
    s_->stopHeartbeat();  // no store traffic after "left": rank 0 may close the store at once
    s_->store->set(key("left", rank()), bytes("1"));
    return;
  }
  s_->store->set(key("left", 0), bytes("1"));
  for (int r = 1; r < worldSize(); ++r) s_->waitFor(key("left", r), Clock::time_point::max(), {});
  s_->stopHeartbeat();
}

}  // namespace poslab::dist
