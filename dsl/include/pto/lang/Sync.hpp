#pragma once
// Synchronisation between the pipes of a core (PyPTO Pro / Ascend C names). In simulated time
// these are the only orderings between pipes; the race checker follows them too.
//   set_flag(src, dst, e) / wait_flag(src, dst, e)  (aliases sync_src / sync_dst): instructions on
//       `dst` after the wait start only when the instructions on `src` before the set are done.
//   pipe_barrier(p): later instructions on p wait for earlier ones; Pipe::ALL joins every pipe.
//   mutex_lock(id, p) / mutex_unlock(id, p): a section on pipe p that excludes other pipes'
//       sections of the same mutex, in program order. auto_mutex inserts these per tile slot.
#include <source_location>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Tile.hpp"

namespace pto::lang {

void set_flag(Pipe src, Pipe dst, Int event, std::source_location loc = std::source_location::current());
void wait_flag(Pipe src, Pipe dst, Int event, std::source_location loc = std::source_location::current());
inline void sync_src(Pipe src, Pipe dst, Int event, std::source_location loc = std::source_location::current()) {
  set_flag(src, dst, std::move(event), loc);
}
inline void sync_dst(Pipe src, Pipe dst, Int event, std::source_location loc = std::source_location::current()) {
  wait_flag(src, dst, std::move(event), loc);
}
void pipe_barrier(Pipe pipe, std::source_location loc = std::source_location::current());
void mutex_lock(Int id, Pipe pipe, std::source_location loc = std::source_location::current());
void mutex_unlock(Int id, Pipe pipe, std::source_location loc = std::source_location::current());

}  // namespace pto::lang
