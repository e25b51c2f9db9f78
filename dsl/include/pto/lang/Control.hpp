#pragma once
// Runtime control flow and the core's identity.
//   for (auto i : pl::range(begin, end, step)) { ... }  a loop in the generated code; the body
//       is traced once. A C++ `break` or `return` inside it is a user error (the code after it
//       would be silently dropped from every iteration): leave it at run time with pl::break_().
//   pl::if_(cond, [&] { ... }, [&] { ... })            a branch in the generated code.
//   pl::break_() / pl::continue_()                      leave the innermost pl::range at run time
//       (PyPTO Pro's `break` / `continue`), usually inside a pl::if_.
//   pl::require(cond, "why")                            a trace-time check of the specialisation.
// Plain C++ `for`/`if` on trace-time values unroll and specialise as usual.
#include <functional>
#include <source_location>
#include <string>

#include "pto/lang/Scalar.hpp"
#include "pto/lang/Trace.hpp"

namespace pto::lang {

/// The block index in [0, get_block_num()), on every core kind, as in PyPTO Pro
/// (docs/zh/pypto_pro/api/SIMD-API/system_variables/get_block_idx.md): the AIC and both AIVs of a
/// mix block see the same value, and the AIVs tell themselves apart with get_subblock_idx(). A
/// vector section that splits work over every AIV of a mix launch uses
/// `range(get_block_idx() * get_subblock_num() + get_subblock_idx(), n, get_block_num() * get_subblock_num())`.
Int get_block_idx(std::source_location loc = std::source_location::current());
/// The launch's block_dim, on every core kind.
Int get_block_num(std::source_location loc = std::source_location::current());

class Range {
 public:
  Range(Int begin, Int end, Int step, std::source_location loc);
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

  struct Sentinel {};
  class Iterator {
   public:
    explicit Iterator(Range* r) : r_(r) {}
    Int operator*() const { return Int(r_->var_); }
    Iterator& operator++() { r_->close(); return *this; }
    bool operator!=(Sentinel) const { return !r_->closed_; }

   private:
    Range* r_;
  };
  Iterator begin();
  Sentinel end() const { return {}; }

 private:
  void close();
  Int begin_, end_, step_;
  std::source_location src_;
  SourceLoc loc_;
  ir::Expr var_;
  bool opened_ = false, closed_ = false;
  size_t scope_depth_ = 0;
};

inline Range range(Int begin, Int end, Int step = 1, std::source_location loc = std::source_location::current()) {
  return Range(std::move(begin), std::move(end), std::move(step), loc);
}
inline Range range(Int end, std::source_location loc = std::source_location::current()) {
  return Range(0, std::move(end), 1, loc);
}

void if_(const Bool& cond, const std::function<void()>& then_case, std::source_location loc = std::source_location::current());
void if_(const Bool& cond, const std::function<void()>& then_case, const std::function<void()>& else_case,
         std::source_location loc = std::source_location::current());

/// Ends the innermost enclosing pl::range at run time (PyPTO Pro's `break`).
void break_(std::source_location loc = std::source_location::current());
/// Skips the rest of the innermost pl::range body; the next iteration starts (PyPTO Pro's `continue`).
void continue_(std::source_location loc = std::source_location::current());

/// A trace-time check: when `cond` is false the launch fails with a UserError naming the
/// kernel, the specialisation and this line. For shape contracts between parameters.
void require(bool cond, const std::string& why, std::source_location loc = std::source_location::current());

}  // namespace pto::lang
