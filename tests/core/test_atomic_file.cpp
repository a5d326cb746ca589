// writeFileAtomically (issue #17): a symlink at the target is followed (the link stays, the file it
// points to is replaced); a directory, FIFO or device is refused with its kind named; temporaries
// that a killed writer left beside the target are removed by the next write of that target, and
// only those (a live writer's, a recent one without a known writer, other files are kept).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/atomic_file.h"
#include "util/error.h"

namespace poslab {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("poslab-atomic-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string get(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void write(const fs::path& p, const std::string& text) {
    writeFileAtomically(p.string(), [&](std::ostream& os) { os << text; });
  }
  // The Error message of writing `p`, or "" when it succeeded.
  static std::string errorOf(const fs::path& p) {
    try {
      write(p, "new");
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(AtomicWrite, FollowsASymlinkAndKeepsIt) {
  fs::create_directories(dir_ / "real");
  put(dir_ / "real" / "data.csv", "old");
  fs::create_symlink("real/data.csv", dir_ / "link.csv");
  write(dir_ / "link.csv", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
  EXPECT_EQ(get(dir_ / "real" / "data.csv"), "new");
  // The temporary lived beside the real file: nothing is left in either folder.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 1);
}

TEST_F(AtomicWrite, FollowsAChainOfSymlinks) {
  put(dir_ / "data", "old");
  fs::create_symlink(dir_ / "data", dir_ / "a");  // absolute
  fs::create_symlink("a", dir_ / "b");            // relative, to a link
  write(dir_ / "b", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "b"));
  EXPECT_EQ(get(dir_ / "data"), "new");
}

TEST_F(AtomicWrite, RefusesASymlinkLoop) {
  fs::create_symlink("y", dir_ / "x");
  fs::create_symlink("x", dir_ / "y");
  EXPECT_NE(errorOf(dir_ / "x").find("too many levels of symbolic links"), std::string::npos);
}

TEST_F(AtomicWrite, RefusesADirectory) {
  fs::create_directories(dir_ / "out.csv");
  const std::string e = errorOf(dir_ / "out.csv");
  EXPECT_NE(e.find("out.csv: it is a directory"), std::string::npos) << e;
  EXPECT_TRUE(fs::is_directory(dir_ / "out.csv"));
}

TEST_F(AtomicWrite, RefusesAFifo) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0600), 0);
  const std::string e = errorOf(dir_ / "pipe");
  EXPECT_NE(e.find("pipe: it is a FIFO"), std::string::npos) << e;
  EXPECT_TRUE(fs::is_fifo(dir_ / "pipe"));
}

TEST_F(AtomicWrite, RefusesADeviceEvenThroughASymlink) {
  fs::create_symlink("/dev/null", dir_ / "null");
  const std::string e = errorOf(dir_ / "null");
  EXPECT_NE(e.find("it is a character device"), std::string::npos) << e;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(AtomicWrite, RemovesOnlyStaleTemporariesOfTheSameTarget) {
  put(dir_ / "ckpt.pt", "old");
  // pid_max is at most 2^22 on Linux, so no process has this id: its writer is gone.
  const fs::path dead = dir_ / ".ckpt.pt.tmp-1073741824-17";
  const fs::path live = dir_ / (".ckpt.pt.tmp-" + std::to_string(::getpid()) + "-18");
  const fs::path old = dir_ / (".ckpt.pt.tmp-" + std::to_string(::getpid()) + "-19");
  const fs::path other = dir_ / ".other.pt.tmp-1073741824-20";
  const fs::path unrelated = dir_ / ".ckpt.pt.keep";
  for (const auto& p : {dead, live, old, other, unrelated}) put(p, "partial");
  fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(2));
  write(dir_ / "ckpt.pt", "new");
  EXPECT_EQ(get(dir_ / "ckpt.pt"), "new");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_FALSE(fs::exists(old));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(unrelated));
}

TEST_F(AtomicWrite, AFailedWriteKeepsThePreviousFileAndLeavesNoTemporary) {
  put(dir_ / "keep", "previous");
  EXPECT_THROW(writeFileAtomically((dir_ / "keep").string(),
                                   [](std::ostream&) { throw Error("the writer failed"); }),
               Error);
  EXPECT_EQ(get(dir_ / "keep"), "previous");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace poslab
