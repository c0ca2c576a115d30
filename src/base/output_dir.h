// Outputs that survive being killed (issue 26). A directory qgpu writes (`build`,
// `compile-model`) is made as OUT.tmp-PID beside OUT and swapped with OUT in one step
// (renameat2 RENAME_EXCHANGE), so at every instant OUT is the previous directory or the
// complete new one, never missing and never partial. What a killed run leaves beside its
// output (OUT.tmp-PID, OUT.old-PID, write_file_atomic's PATH.tmp.PID) is removed by the
// next run that writes there, once no live process has that PID.
#pragma once

#include <string>
#include <vector>

namespace qgpu {

// Whether a process with this id exists here (kill(pid, 0) does not fail with ESRCH).
bool process_alive(long pid);

// Removes the siblings of path named PATH + marker + PID (the PID all digits) for each
// marker, whose process is gone or is this one (which has not made them yet: an earlier
// process had its id); returns their paths. Siblings of live processes are left alone.
std::vector<std::string> remove_stale_siblings(const std::string& path, const std::vector<std::string>& markers);

// A directory written beside `out` and swapped into place when complete. The constructor
// cleans what killed runs left beside out (putting back OUT.old-PID when out is missing:
// a run of qgpu before issue 26 killed between its two renames) and creates OUT.tmp-PID,
// empty; it refuses an out that exists and is neither empty nor a checkpoint (no
// config.json), which the swap would delete. The destructor removes the temporary
// directory unless commit() moved it into place.
class StagedDir {
 public:
  explicit StagedDir(const std::string& out);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  const std::string& path() const { return tmp_; }
  const std::string& out() const { return out_; }
  // Swaps the temporary directory with out (or renames it there when out is missing) and
  // removes the previous output. Errors name out and where the new output is.
  void commit();

 private:
  std::string out_, tmp_;
  bool committed_ = false;
};

}  // namespace qgpu
