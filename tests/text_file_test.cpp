// Reading a text file qgpu did not write: a size limit checked while reading (a device or a
// pipe has no size), one error naming the file for a missing file, a directory or a file
// past the limit; and the CLI's limits on what it reads (docs/reliability.md, "Limits").
#include "base/text_file.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test_util::qgpu;
using test_util::TempDir;
using test_util::Result;
using test_util::TempFile;

std::string error_of(const std::string& path, size_t max_bytes) {
  try {
    return "read " + std::to_string(read_text_file(path, max_bytes, "test file").size()) + " bytes";
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.starts_with(path)) m.replace(0, path.size(), "F");
    return m;
  }
}

TEST(TextFile, ReadsUpToTheLimitAndNoFurther) {
  const std::string mib(size_t{1} << 20, 'x');
  TempFile exact(mib), over(mib + "y");
  EXPECT_EQ(error_of(exact.path.string(), size_t{1} << 20), "read 1048576 bytes");
  EXPECT_EQ(error_of(over.path.string(), size_t{1} << 20),
            "F: larger than the 1 MiB a test file may be; is it the right file?");
  EXPECT_EQ(error_of("/dev/zero", size_t{1} << 20), "F: larger than the 1 MiB a test file may be; is it the right file?");
  EXPECT_EQ(error_of("/no/such/file", 10), "F: cannot read the test file (No such file or directory)");
  TempDir dir;
  EXPECT_EQ(error_of(dir.path.string(), 10), "F: reading the test file failed (Is a directory)");
}

TEST(TextFile, TheCliRefusesAnInputPastItsLimit) {
  const Result r = qgpu("run /dev/zero");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.err, "qgpu: error: /dev/zero: larger than the 1 MiB a CUDA source may be; is it the right file?\n");
  const Result a = qgpu("asm /dev/zero --run");
  EXPECT_EQ(a.err, "qgpu: error: /dev/zero: larger than the 1 MiB a .qasm file may be; is it the right file?\n");
}

}  // namespace
}  // namespace qgpu
