#pragma once
// The processes of an MPI run (`mpirun -n N pto sweep ...`), or rank 0 of 1.
//
// MPI is initialised only when the process was started by an MPI launcher (its environment says
// so), so a plain `pto` call never touches MPI; a build without MPI is always rank 0 of 1. The
// collectives are the two a sharded sweep or search needs: everyone's strings on rank 0, and
// everyone's strings everywhere.
#include <string>
#include <vector>

namespace pto::cli {

class Ranks {
 public:
  /// Initialises MPI when launched under an MPI launcher; call once, first thing in main.
  static void init(int* argc, char*** argv);
  /// Finalises MPI if it was initialised (safe to call more than once).
  static void finalize();
  /// Ends every rank of an MPI run with `code` (MPI_Abort), so one rank's error can't leave the
  /// others waiting in a collective; without MPI, returns.
  static void abort_all(int code);

  static int rank();
  static int size();
  static bool root() { return rank() == 0; }
  /// Whether this build can use MPI at all.
  static bool available();

  /// Rank 0 gets every rank's string, in rank order; the others get an empty vector.
  static std::vector<std::string> gather(const std::string& mine);
  /// Every rank gets every rank's string, in rank order.
  static std::vector<std::string> allgather(const std::string& mine);
};

/// The items of `n` this rank owns when they are dealt round-robin: i with i % size == rank.
std::vector<size_t> my_share(size_t n);

}  // namespace pto::cli
