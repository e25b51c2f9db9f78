#pragma once
// Work the runtime does in the background (queued launches on the default stream, optimising
// compiles) must finish before any static object is destroyed at exit. A static's own destructor
// is too late: statics made after it (LLVM's, when a background compile loaded the compiler with
// dlopen; the emulator's, made by a launch) have their destructors run before it, under the work
// still running — a crash, a double free or a hang at exit. The exiting thread's thread_local
// objects are destroyed before every static one ([basic.start.term]), so the thread that loads
// the runtime (the main thread, the one that returns from main) holds one that runs the
// functions registered here, latest first.
//
// Not covered: a process ended by another thread; there the statics' destructors remain.
namespace pto::detail {

/// Registers `fn` (at most 8 in all; during static initialisation, on any thread).
void at_main_thread_exit(void (*fn)());

}  // namespace pto::detail
