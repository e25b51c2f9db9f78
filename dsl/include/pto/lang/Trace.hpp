#pragma once
// The trace context: while the runtime calls a kernel lambda once to trace it, every `pl::`
// operation appends IR to the context of the calling thread. Outside a trace, using a `pl::`
// operation is a user error.
#include <array>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "pto/ir/Kernel.hpp"

namespace pto {
class TilingKey;
}

namespace pto::lang {

class TraceContext {
 public:
  TraceContext(std::string kernel_name, std::string specialization);
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  /// The context of the calling thread; throws a UserError naming `loc` when not tracing.
  static TraceContext& get(const std::source_location& loc);
  static TraceContext* current();

  ir::Kernel& kernel() { return kernel_; }
  void emit(ir::Stmt s);
  void push_scope();
  ir::Stmt pop_scope();
  size_t scope_depth() const { return scopes_.size(); }

  ir::Expr new_var(const std::string& name, ir::VarKind kind, int param_index = -1, DType dtype = DType::i64);
  /// Gives every tensor parameter its extents and strides (ir::TensorParam::extent, stride):
  /// constants for static dimensions; for dynamic ones new Param Vars ("arg0.shape0"), hidden
  /// scalar arguments numbered from `first_hidden_scalar` in parameter and dimension order: the
  /// order in which the launch appends their values after the user's scalars.
  void bind_tensor_extents(int first_hidden_scalar);
  /// The Var of get_block_idx / get_block_num / get_subblock_idx / get_subblock_num (one each).
  ir::Expr core_var(ir::VarKind kind);
  /// The section being traced (section_cube / section_vector), if any.
  std::optional<ir::CoreKind> section() const { return section_; }
  void set_section(std::optional<ir::CoreKind> s) { section_ = s; }
  int add_group(ir::TileGroup g);
  ir::Instr new_instr(std::string op, ir::Pipe pipe, const std::source_location& loc);

  /// The error site for a trace-time error at `loc`.
  ErrorSite site(const SourceLoc& loc) const;
  /// Remembers the latest user source line seen (for operations that cannot take one).
  void note(const std::source_location& loc) { last_loc_ = SourceLoc::from(loc); }
  const SourceLoc& last_loc() const { return last_loc_; }

  /// The launch's tiling key (may be empty), read by pl::tiling_key<K>().
  void set_tiling_key(const TilingKey* key) { tiling_key_ = key; }
  const TilingKey* tiling_key() const { return tiling_key_; }

  /// pl::range bodies being traced (pl::break_ / pl::continue_ need one).
  int open_loops() const { return open_loops_; }
  void enter_loop() { ++open_loops_; }
  void leave_loop() { --open_loops_; }

  /// pl::vector_function: the one being traced (its index, or -1), and whether a vf operation is
  /// emitting now (inside a vector function nothing else may emit a statement).
  int vector_function() const { return vf_; }
  void begin_vector_function();
  void end_vector_function();
  void set_vf_op(bool on) { vf_op_ = on; }
  /// Marks instruction `id` as part of the vector function being traced.
  void mark_vf_instr(int id);

  /// An error found by a destructor (a `break` out of `pl::range`); raised by finish().
  void defer_error(std::string reason, SourceLoc loc);
  /// Ends the trace: raises a deferred error, fills instruction texts, returns the kernel.
  ir::Kernel finish();

 private:
  ir::Kernel kernel_;
  std::vector<std::vector<ir::Stmt>> scopes_;
  std::array<ir::Expr, 4> core_vars_;
  std::optional<ir::CoreKind> section_;
  SourceLoc last_loc_;
  std::string deferred_reason_;
  SourceLoc deferred_loc_;
  TraceContext* previous_;
  const TilingKey* tiling_key_ = nullptr;
  int open_loops_ = 0;
  int vf_ = -1;
  int vf_count_ = 0;
  bool vf_op_ = false;
  bool vf_started_ = false;  // the current vector function has emitted its first instruction
};

}  // namespace pto::lang
