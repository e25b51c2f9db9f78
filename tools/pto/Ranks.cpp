#include "Ranks.hpp"

#include <cstdlib>

#ifdef PTO_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // the C API only: no link against the C++ bindings
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace pto::cli {

namespace {
int g_rank = 0, g_size = 1;
bool g_mpi = false;

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}
}  // namespace

bool Ranks::available() {
#ifdef PTO_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void Ranks::init([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifdef PTO_HAVE_MPI
  if (g_mpi || !launched_by_mpi()) return;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_mpi = true;
  std::atexit(&Ranks::finalize);
#endif
}

void Ranks::finalize() {
#ifdef PTO_HAVE_MPI
  if (!g_mpi) return;
  g_mpi = false;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
#endif
}

void Ranks::abort_all([[maybe_unused]] int code) {
#ifdef PTO_HAVE_MPI
  if (g_mpi && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
}

int Ranks::rank() { return g_rank; }
int Ranks::size() { return g_size; }

namespace {
#ifdef PTO_HAVE_MPI
// Lengths first, then the bytes (MPI_Gatherv / MPI_Allgatherv).
std::vector<std::string> collect(const std::string& mine, bool everywhere) {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(g_size));
  if (everywhere) {
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  } else {
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  std::vector<int> offsets(static_cast<size_t>(g_size), 0);
  int total = 0;
  for (int r = 0; r < g_size; ++r) offsets[r] = total, total += lens[r];
  std::string all(static_cast<size_t>(everywhere || g_rank == 0 ? total : 0), '\0');
  if (everywhere) {
    MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
  } else {
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  std::vector<std::string> out;
  if (!everywhere && g_rank != 0) return out;
  for (int r = 0; r < g_size; ++r) out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lens[r])));
  return out;
}
#endif
}  // namespace

std::vector<std::string> Ranks::gather(const std::string& mine) {
#ifdef PTO_HAVE_MPI
  if (g_mpi) return collect(mine, false);
#endif
  return {mine};
}

std::vector<std::string> Ranks::allgather(const std::string& mine) {
#ifdef PTO_HAVE_MPI
  if (g_mpi) return collect(mine, true);
#endif
  return {mine};
}

std::vector<size_t> my_share(size_t n) {
  std::vector<size_t> out;
  for (size_t i = static_cast<size_t>(Ranks::rank()); i < n; i += static_cast<size_t>(Ranks::size())) out.push_back(i);
  return out;
}

}  // namespace pto::cli
