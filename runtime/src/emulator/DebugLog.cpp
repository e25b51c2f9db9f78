#include "DebugLog.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "pto/support/DebugFormat.hpp"

namespace pto::emulator {

int32_t DebugLog::on_debug(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
  const int c = static_cast<int>(ctx->status - status_.data());
  const ir::Debug* d = k_.debugs.at(instr);
  const auto& info = k_.ir.instrs[instr];
  DebugMessage m;
  m.kernel = k_.ir.name;
  m.block = c / layout_.per_block;
  m.core_kind = ir::core_kind_name(layout_.kind(c % layout_.per_block));
  m.core = layout_.number(m.block, c % layout_.per_block);
  m.instr = instr;
  m.loc = info.loc;
  m.kind = info.op;
  const int nargs = static_cast<int>(d->args.size());
  const auto address = [ctx](int64_t tensor) { return reinterpret_cast<uint64_t>(ctx->tensors[tensor]); };  // %p
  int32_t stop = 0;
  switch (d->op) {
    case ir::DebugOp::Printf: m.text = format_debug(d->format, args, nargs, address); break;
    case ir::DebugOp::Assert:
      m.text = fmt::format("assertion failed at {}: {}", info.loc.str(), format_debug(d->format, args, nargs, address));
      if (k_.fatal_assert) stop = fail(ctx, instr, RuntimeCheck::assert_failed);
      break;
    case ir::DebugOp::Trap:
      m.text = fmt::format("trap at {}", info.loc.str());
      stop = fail(ctx, instr, RuntimeCheck::trap);
      break;
    case ir::DebugOp::Dump: m.text = dump(d, data, rows, cols, pitch); break;
  }
  per_core_[c].push_back(std::move(m));
  // The op the message precedes; its simulated time is known after the replay (timed()).
  op_of_[c].push_back(ctx->model ? static_cast<CoreModel*>(ctx->model)->trace().ops.size() : 0);
  return stop;
}

void DebugLog::deliver() {
  std::vector<std::pair<size_t, size_t>> order;  // (core, index)
  for (size_t c = 0; c < per_core_.size(); ++c) {
    for (size_t i = 0; i < per_core_[c].size(); ++i) order.emplace_back(c, i);
  }
  if (order.empty()) return;
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    const double ta = per_core_[a.first][a.second].time_us, tb = per_core_[b.first][b.second].time_us;
    return ta != tb ? ta < tb : a < b;
  });
  for (const auto& [c, i] : order) detail::deliver_debug_message(per_core_[c][i]);
}

std::string DebugLog::dump(const ir::Debug* d, const void* data, int64_t rows, int64_t cols, int64_t pitch) const {
  const auto* bytes = static_cast<const uint8_t*>(data);
  DType dtype;
  std::string out;
  if (d->region.tensor >= 0) {
    const auto& t = k_.ir.tensors[static_cast<size_t>(d->region.tensor)];
    dtype = t.dtype;
    const auto view_rows = ir::int_constant(d->region.view[0]);  // a dynamic extent is not at hand here: "?"
    out = fmt::format("{} (GM {}x{} of {}x{} {})", t.name, rows, cols, view_rows ? std::to_string(*view_rows) : "?", pitch, dtype_name(dtype));
  } else {
    const auto& g = k_.ir.groups[d->tile.group];
    dtype = g.dtype;
    out = fmt::format("{} ({} {}x{} of {}x{} {})", g.name, ir::mem_space_name(g.space), rows, cols, g.rows, g.cols, dtype_name(dtype));
  }
  const size_t es = dtype_size(dtype);
  for (int64_t r = 0; r < rows; ++r) {
    out += "\n ";
    for (int64_t c = 0; c < cols; ++c) out += " " + element(bytes + (r * pitch + c) * es, dtype);
  }
  return out;
}

std::string DebugLog::element(const uint8_t* p, DType t) {
  switch (t) {
    case DType::f32: { float v; std::memcpy(&v, p, 4); return fmt::format("{:g}", v); }
    case DType::f16: { half v; std::memcpy(&v, p, 2); return fmt::format("{:g}", static_cast<float>(v)); }
    case DType::bf16: { bfloat16 v; std::memcpy(&v, p, 2); return fmt::format("{:g}", static_cast<float>(v)); }
    case DType::i32: { int32_t v; std::memcpy(&v, p, 4); return fmt::format("{}", v); }
    case DType::i8: return fmt::format("{}", static_cast<int8_t>(*p));
    default: return "?";
  }
}

int32_t debug_hook(CoreContext* ctx, int32_t instr, const int64_t* args, const void* data, int64_t rows, int64_t cols, int64_t pitch) {
  return static_cast<DebugLog*>(ctx->launch)->on_debug(ctx, instr, args, data, rows, cols, pitch);
}

}  // namespace pto::emulator
