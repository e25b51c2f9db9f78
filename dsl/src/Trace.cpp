#include "pto/lang/Trace.hpp"

#include <cstdlib>
#include <set>
#include <exception>
#include <unordered_map>
#include <unordered_set>

#include "pto/ir/Accesses.hpp"
#include "pto/ir/Printer.hpp"
#include "pto/ir/Visitor.hpp"
#include "pto/lang/Control.hpp"
#include "pto/lang/Ops.hpp"
#include "pto/lang/Sync.hpp"
#include "pto/lang/TilingKey.hpp"

namespace pto::lang {
namespace {
thread_local TraceContext* tls_current = nullptr;
}

TraceContext::TraceContext(std::string kernel_name, std::string specialization) : previous_(tls_current) {
  kernel_.name = std::move(kernel_name);
  kernel_.specialization = std::move(specialization);
  scopes_.emplace_back();
  tls_current = this;
}

TraceContext::~TraceContext() { tls_current = previous_; }

TraceContext* TraceContext::current() { return tls_current; }

TraceContext& TraceContext::get(const std::source_location& loc) {
  PTO_USER_CHECK(tls_current != nullptr, (ErrorSite{.loc = SourceLoc::from(loc)}))
      << "a pl:: operation was used outside a kernel: call it inside the lambda given to pl::jit";
  return *tls_current;
}

void TraceContext::emit(ir::Stmt s) {
  if (vf_ >= 0 && !vf_op_) {
    std::string text = ir::to_string(s, &kernel_);
    text = text.substr(0, text.find('\n'));
    PTO_USER_CHECK(false, site(last_loc_))
        << "inside pl::vector_function only its vf operations run (vf.load, vf.store, vf.row_sum, ...; register values are "
           "tile expressions of what vf.load returned), not '" << text.substr(text.find_first_not_of(' '))
        << "': move other instructions, loops and tile assignments out of the function";
  }
  scopes_.back().push_back(std::move(s));
}

void TraceContext::begin_vector_function() {
  PTO_USER_CHECK(vf_ < 0, site(last_loc_)) << "pl::vector_function inside another vector function";
  vf_ = vf_count_++;
  vf_started_ = false;
}

void TraceContext::end_vector_function() { vf_ = -1; }

void TraceContext::mark_vf_instr(int id) {
  auto& info = kernel_.instrs.at(static_cast<size_t>(id));
  info.vector_function = vf_;
  info.vf_first = !vf_started_;
  vf_started_ = true;
}
void TraceContext::push_scope() { scopes_.emplace_back(); }
ir::Stmt TraceContext::pop_scope() {
  PTO_INTERNAL_CHECK(scopes_.size() > 1) << "scope underflow";
  auto body = std::move(scopes_.back());
  scopes_.pop_back();
  return ir::Seq::make(std::move(body));
}

ir::Expr TraceContext::new_var(const std::string& name, ir::VarKind kind, int param_index, DType dtype) {
  return ir::Var::make(name, kernel_.num_vars++, kind, param_index, dtype);
}

ir::Expr TraceContext::core_var(ir::VarKind kind) {
  static constexpr const char* kNames[] = {"block_idx", "block_num", "subblock_idx", "subblock_num"};
  const int i = static_cast<int>(kind) - static_cast<int>(ir::VarKind::BlockIdx);
  PTO_INTERNAL_CHECK(i >= 0 && i < 4) << "not a core variable";
  if (!core_vars_[i]) core_vars_[i] = new_var(kNames[i], kind);
  return core_vars_[i];
}

int TraceContext::add_group(ir::TileGroup g) {
  kernel_.groups.push_back(std::move(g));
  return static_cast<int>(kernel_.groups.size()) - 1;
}

ir::Instr TraceContext::new_instr(std::string op, ir::Pipe pipe, const std::source_location& loc) {
  note(loc);
  const int id = static_cast<int>(kernel_.instrs.size());
  kernel_.instrs.push_back({std::move(op), pipe, "", SourceLoc::from(loc)});
  return {id, SourceLoc::from(loc)};
}

ErrorSite TraceContext::site(const SourceLoc& loc) const {
  return ErrorSite{.kernel = kernel_.name, .specialization = kernel_.specialization, .loc = loc};
}

void TraceContext::defer_error(std::string reason, SourceLoc loc) {
  if (deferred_reason_.empty()) {
    deferred_reason_ = std::move(reason);
    deferred_loc_ = std::move(loc);
  }
}

namespace {
/// Fills each instruction's printed form and access facts, for errors, profiles and the timing model.
class InstrTexts : public ir::Visitor {
 public:
  explicit InstrTexts(ir::Kernel& k) : k_(k) {}

 protected:
  /// The operations a vector function's earlier instructions computed (their registers are reused).
  std::unordered_set<const ir::ExprNode*>* computed(const ir::InstrInfo& info) {
    return info.vector_function < 0 ? nullptr : &vf_computed_[info.vector_function];
  }
  std::unordered_map<int, std::unordered_set<const ir::ExprNode*>> vf_computed_;

  ir::InstrInfo& set(const ir::Instr& i, const ir::StmtNode* s) {
    std::string text = ir::to_string(ir::Stmt(std::shared_ptr<const ir::StmtNode>(std::shared_ptr<const ir::StmtNode>{}, s)), &k_);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    auto& info = k_.instrs[i.id];
    text = text.substr(text.find_first_not_of(' '));
    if (text.starts_with('#')) text = text.substr(text.find(' ') + 1);  // the id is printed by whoever shows it
    info.text = text;
    for (const auto& a : ir::tile_accesses(s)) info.tiles.emplace_back(a.tile.group, a.write);
    if (!info.tiles.empty()) info.dtype = k_.groups[info.tiles.front().first].dtype;
    info.cls = classify(s, info);
    return info;
  }
  /// The width the race checker and the L2 model see a region in: its row stride when its columns
  /// are contiguous (-1: a dynamic one, the launch's column count of the tensor), else 0 (an interval).
  int64_t gm_width(const ir::GMRegion& r) const {
    if (ir::int_constant(ir::region_stride(r, 1)) != 1) return 0;
    const ir::Expr row = ir::region_stride(r, 0);
    if (auto c = ir::int_constant(row)) return *c;
    const auto& t = k_.tensors[r.tensor];
    const bool one_row = ir::int_constant(r.view[0]) == 1;
    if (one_row) return ir::int_constant(r.view[1]).value_or(-1);
    return row.same_as(t.extent[t.rank - 1]) ? -1 : 0;
  }
  void visit_node(const ir::Load* op) override {
    auto& info = set(*op, op);
    info.tensor = op->src.tensor;
    info.gm_view_cols = gm_width(op->src);
  }
  void visit_node(const ir::Store* op) override {
    auto& info = set(*op, op);
    info.tensor = op->dst.tensor;
    info.gm_view_cols = gm_width(op->dst);
    info.gm_write = true;
    info.atomic = op->atomic_add;
  }
  void visit_node(const ir::VecCompute* op) override {
    auto& info = set(*op, op);
    info.vec_ops = ir::count_vec_ops(op->value, computed(info));
  }
  void visit_node(const ir::RowReduce* op) override {
    auto& info = set(*op, op);
    info.vec_ops = ir::count_vec_ops(op->value, computed(info));
    // A row reduction is the vector unit's cross-lane reduce (vcadd/vcmax); a column reduction
    // combines whole rows with element-wise vadd/vmax (pto-isa TCOLSUM; assumption: one binary op).
    info.vec_ops[static_cast<int>(op->axis == 1 ? ir::VecOp::Binary : ir::VecOp::Reduce)] += 1;
  }
  void visit_node(const ir::VecRoutine* op) override {
    // Each routine is charged as element-wise vector work over the elements it writes (an
    // assumption: no published cost): one pass, a sort of 32 five (log2 32 compare-exchange
    // stages), a 4-way merge two.
    const int passes = op->routine == ir::Routine::Sort32 ? 5 : (op->routine == ir::Routine::MrgSort || op->routine == ir::Routine::MrgSort2) ? 2 : 1;
    set(*op, op).vec_ops[static_cast<int>(ir::VecOp::Binary)] = static_cast<uint8_t>(passes);
  }
  void visit_node(const ir::Sync* op) override { set(*op, op); }
  void visit_node(const ir::Move* op) override {
    auto& info = set(*op, op);
    if (!op->attrs.cross_core) return;
    if (k_.groups[op->src.group].space != ir::MemSpace::Acc) {
      info.peer_slots = 1;  // Vec -> Mat: the AIC's L1
    } else {
      switch (op->attrs.split) {
        case ir::AccToVec::SingleModeVec0: info.peer_slots = 2; break;
        case ir::AccToVec::SingleModeVec1: info.peer_slots = 4; break;
        default: info.peer_slots = 6; break;
      }
    }
  }
  void visit_node(const ir::SetValid* op) override { set(*op, op).dtype = k_.groups[op->tile.group].dtype; }
  void visit_node(const ir::ElemAccess* op) override {
    auto& info = set(*op, op);
    if (op->tensor < 0) return;
    const auto& t = k_.tensors[op->tensor];
    info.tensor = op->tensor;  // the element is reported as [offset, offset + 1) of the tensor's row-major view,
    info.gm_view_cols = t.shape[t.rank - 1];  // (-1: dynamic) so the race checker compares it with loads and stores rectangle by rectangle
    info.gm_write = op->write;
    info.dtype = t.dtype;
  }
  void visit_node(const ir::Debug* op) override {
    auto& info = set(*op, op);
    info.tensor = op->region.tensor;  // dump_data of a GM region: names the tensor in errors (no GM access is reported)
  }
  void visit_node(const ir::Matmul* op) override { set(*op, op).dtype = k_.groups[op->a.group].dtype; }

 private:
  static ir::InstrClass classify(const ir::StmtNode* s, const ir::InstrInfo& info) {
    switch (s->kind) {
      case ir::NodeKind::Load: return ir::InstrClass::Load;
      case ir::NodeKind::Store: return ir::InstrClass::Store;
      case ir::NodeKind::VecCompute:
      case ir::NodeKind::VecRoutine:
      case ir::NodeKind::RowReduce: return ir::InstrClass::Vector;
      case ir::NodeKind::Move: return ir::InstrClass::Move;
      case ir::NodeKind::Matmul: return ir::InstrClass::Matmul;
      case ir::NodeKind::Sync: return ir::InstrClass::Other;
      default: return info.pipe == ir::Pipe::S ? ir::InstrClass::Scalar : ir::InstrClass::Other;
    }
  }
  ir::Kernel& k_;
};
}  // namespace

/// Mix when the kernel has both kinds of section; otherwise the kind of its sections, or of the
/// memories its tiles live in (a JitOptions mode overrides this before lowering).
static ir::KernelMode deduce_mode(const ir::Kernel& k) {
  struct Sections : ir::Visitor {
    bool cube = false, vector = false;
    void visit_node(const ir::Section* op) override {
      (op->core == ir::CoreKind::AIC ? cube : vector) = true;
      ir::Visitor::visit_node(op);
    }
  } s;
  s.visit(k.body);
  if (s.cube && s.vector) return ir::KernelMode::Mix;
  if (s.cube) return ir::KernelMode::Cube;
  if (s.vector) return ir::KernelMode::Vector;
  bool cube_tiles = false;
  for (const auto& g : k.groups) cube_tiles |= g.space != MemSpace::Vec;
  return cube_tiles ? ir::KernelMode::Cube : ir::KernelMode::Vector;
}

ir::Kernel TraceContext::finish() {
  PTO_USER_CHECK(deferred_reason_.empty(), site(deferred_loc_)) << deferred_reason_;
  PTO_INTERNAL_CHECK(scopes_.size() == 1) << "unbalanced scopes at the end of the trace";
  kernel_.body = ir::Seq::make(std::move(scopes_.back()));
  scopes_.back().clear();
  kernel_.mode = deduce_mode(kernel_);
  InstrTexts(kernel_).visit(kernel_.body);
  return std::move(kernel_);
}

// ----------------------------------------------------------------------------------- detail ops

namespace detail {

int declare_group(DType dtype, MemSpace space, std::vector<int64_t> shape, std::vector<int> mutex_ids,
                  const std::source_location& loc, ir::TilePad pad, std::vector<int64_t> addrs, ir::Layout layout) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  PTO_USER_CHECK(shape.size() == 1 || shape.size() == 2, site)
      << "a tile shape is {n} or {rows, cols}, got " << shape.size() << " dimensions";
  for (int64_t d : shape) PTO_USER_CHECK(d > 0, site) << "tile dimensions must be positive, got " << d;
  PTO_USER_CHECK(mutex_ids.size() <= 32, site) << "a tile group has at most 32 slots, got " << mutex_ids.size();
  for (int id : mutex_ids) PTO_USER_CHECK(id >= 0 && id < 32, site) << "mutex ids are 0..31, got " << id;
  PTO_USER_CHECK(space != MemSpace::GM, site) << "tiles live in a core's local memory (Vec, Mat, Left, Right, Acc), not GM";
  ir::TileGroup g;
  const int index = static_cast<int>(ctx.kernel().groups.size());
  g.name = "t" + std::to_string(index);
  g.dtype = dtype;
  g.space = space;
  g.rank = static_cast<int>(shape.size());
  g.rows = shape.size() == 2 ? shape[0] : 1;
  g.cols = shape.back();
  g.mutex_ids = std::move(mutex_ids);
  g.pad = pad;
  g.depth = std::max<int>(1, static_cast<int>(g.mutex_ids.size()));
  if (g.depth > 1) {
    g.counter = ctx.new_var(g.name + ".slot", ir::VarKind::Mutable);
    ctx.kernel().mutable_vars.push_back(g.counter);
    // PyPTO Pro's cursor starts on the last slot: the first next() gives slot 0.
    ctx.emit(ir::Assign::make(g.counter, ir::IntImm::make(g.depth - 1)));
  }
  g.loc = SourceLoc::from(loc);
  PTO_USER_CHECK(addrs.empty() || static_cast<int>(addrs.size()) == g.depth, site)
      << "addrs gives " << addrs.size() << " addresses for a tile group of " << g.depth << " slots: one per slot";
  for (int64_t a : addrs) PTO_USER_CHECK(a >= 0, site) << "a tile address is a byte offset in its memory, >= 0; got " << a;
  g.addrs = std::move(addrs);
  g.layout = layout;
  return ctx.add_group(std::move(g));
}

static const ir::TileGroup& group(int g) {
  return TraceContext::get(std::source_location::current()).kernel().groups.at(g);
}
TileShape group_shape(int g) {
  const auto& d = group(g);
  return {d.rows, d.cols, d.rank, d.space};
}
ir::Expr group_counter(int g) { return group(g).counter; }
int group_depth(int g) { return group(g).depth; }

void emit_vec_compute(const ir::TileRef& dst, const ir::Expr& value, const SourceLoc& loc) {
  auto& ctx = TraceContext::get(std::source_location::current());
  const int id = static_cast<int>(ctx.kernel().instrs.size());
  ctx.kernel().instrs.push_back({"vec", ir::Pipe::V, "", loc});
  ctx.emit(ir::VecCompute::make(dst, value, ir::Instr{id, loc}));
}

ir::TileRef make_view(const ir::TileRef& tile, const TileShape& shape, const ir::Expr& row, int64_t rows, const ir::Expr& col,
                      int64_t cols, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const auto& g = group(tile.group);
  PTO_USER_CHECK(shape.space == MemSpace::Vec, site)
      << "a view of the " << ir::mem_space_name(shape.space) << " tile '" << g.name
      << "': views are operands and destinations of tile expressions, which run on Vec tiles";
  PTO_USER_CHECK(rows >= 1 && cols >= 1 && rows <= shape.rows && cols <= shape.cols, site)
      << "view of " << rows << " x " << cols << " of the " << shape.rows << " x " << shape.cols << (tile.window ? " view" : " tile")
      << " '" << g.name << "': a view's extents are at least 1 and at most the tile's";
  const ir::Expr off[2] = {row, col};
  const int64_t ext[2] = {rows, cols}, cap[2] = {shape.rows, shape.cols};
  ir::TileWindow w;
  for (int d = 0; d < 2; ++d) {
    if (const auto* imm = off[d].as<ir::IntImm>()) {
      PTO_USER_CHECK(imm->value >= 0 && imm->value + ext[d] <= cap[d], site)
          << "view " << (d == 0 ? "rows " : "columns ") << imm->value << " +: " << ext[d] << " of the " << shape.rows << " x "
          << shape.cols << (tile.window ? " view" : " tile") << " '" << g.name << "' reach past its " << cap[d]
          << (d == 0 ? " rows" : " columns");
    }
    w.offset[d] = tile.window ? ir::Binary::make(ir::BinaryOp::Add, tile.window->offset[d], off[d]) : off[d];
    w.extent[d] = ext[d];
  }
  return ir::TileRef{tile.group, tile.slot, std::move(w)};
}

void vf_check_tile(int group_id, bool store, const std::set<int>& loaded, const std::set<int>& stored, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  PTO_USER_CHECK(ctx.vector_function() >= 0, ctx.site(SourceLoc::from(loc))) << "a vf operation outside pl::vector_function";
  const bool clash = store ? loaded.count(group_id) != 0 : stored.count(group_id) != 0;
  PTO_USER_CHECK(!clash, ctx.site(SourceLoc::from(loc)))
      << "pl::vector_function " << (store ? "stores into" : "loads") << " tile '" << group(group_id).name << "', which it also "
      << (store ? "loads" : "stores") << ": inside a vector function registers carry values between steps, so a tile is "
      << "either loaded or stored (use another tile, or two vector functions)";
}

void view_not_a_whole_tile(const ir::TileRef& view) {
  TraceContext* ctx = TraceContext::current();
  const SourceLoc loc = ctx ? ctx->last_loc() : SourceLoc{};
  PTO_USER_CHECK(false, ctx ? ctx->site(loc) : ErrorSite{.loc = loc})
      << "a view of tile '" << group(view.group).name << "' given to an instruction that takes whole tiles: views are operands "
      << "and destinations of tile expressions (v = a + b, pl::exp(v)); pl::load, pl::store, pl::move, pl::matmul, reduction "
      << "destinations and the valid-extent queries take the tile itself";
  std::abort();  // not reached: the check throws
}

void emit_load(const ir::TileRef& dst, const TileShape& shape, DType dtype, const ir::GMRegion& src, int src_rank,
               const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(shape.rank == src_rank, ctx.site(SourceLoc::from(loc)))
      << "load of a " << src_rank << "-D slice into a " << shape.rank << "-D tile; ranks must match";
  PTO_USER_CHECK(shape.space == MemSpace::Vec || shape.space == MemSpace::Mat, ctx.site(SourceLoc::from(loc)))
      << "load into a " << ir::mem_space_name(shape.space) << " tile: MTE2 loads GM into Vec or Mat; "
      << "Left and Right are filled from Mat with pl::move, Acc by pl::matmul";
  ctx.emit(ir::Load::make(dst, src, ctx.new_instr("load", ir::Pipe::MTE2, loc)));
}

void emit_store(const ir::GMRegion& dst, int dst_rank, const ir::TileRef& src, const TileShape& shape, DType dtype,
                const std::source_location& loc, const StoreOptions& options) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(shape.rank == dst_rank, ctx.site(SourceLoc::from(loc)))
      << "store of a " << shape.rank << "-D tile into a " << dst_rank << "-D slice; ranks must match";
  PTO_USER_CHECK(shape.space == MemSpace::Vec || shape.space == MemSpace::Acc, ctx.site(SourceLoc::from(loc)))
      << "store from a " << ir::mem_space_name(shape.space) << " tile: GM is written from Vec (MTE3) or Acc (FIX)";
  const ir::Pipe pipe = shape.space == MemSpace::Acc ? ir::Pipe::FIX : ir::Pipe::MTE3;
  const bool add = options.atomic == AtomicType::AtomicAdd;
  const DType to = ctx.kernel().tensors[static_cast<size_t>(dst.tensor)].dtype;
  PTO_USER_CHECK(shape.space == MemSpace::Acc || to == dtype, ctx.site(SourceLoc::from(loc)))
      << "store of a " << dtype_name(dtype) << " Vec tile into a " << dtype_name(to)
      << " tensor: MTE3 does not convert; convert with pl::cast first (FIX converts on the way out of Acc)";
  PTO_USER_CHECK(shape.space == MemSpace::Acc || !options.scale.expr(), ctx.site(SourceLoc::from(loc)))
      << "store with a scale from a Vec tile: quantisation is the fixpipe's, on the way out of Acc; multiply the tile instead";
  PTO_USER_CHECK(!add || to == DType::f32 || to == DType::f16 || to == DType::bf16 || to == DType::i32, ctx.site(SourceLoc::from(loc)))
      << "atomic-add store into a " << dtype_name(to) << " tensor: atomic adds work on f32, f16, bf16 and i32";
  ctx.emit(ir::Store::make(dst, src, ctx.new_instr("store", pipe, loc), add, options.relu_pre_mode == ReluPreMode::NormalRelu,
                           options.scale.expr()));
}

void emit_row_reduce(ir::ReduceOp op, const ir::TileRef& dst, const TileShape& dst_shape, DType dst_dtype,
                     const ir::Expr& value, const std::source_location& loc, int axis) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(dst_shape.rank == 2, ctx.site(SourceLoc::from(loc)))
      << ir::reduce_op_name(op, axis) << " writes a 2-D " << (axis == 1 ? "{1, cols}" : "{rows, 1}") << " tile; the destination is 1-D";
  ctx.emit(ir::RowReduce::make(op, dst, value, ctx.new_instr(ir::reduce_op_name(op, axis), ir::Pipe::V, loc), {}, axis));
}

}  // namespace detail

// ------------------------------------------------------------------------------ control flow

Int get_block_idx(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::BlockIdx)); }
Int get_block_num(std::source_location loc) { return Int(TraceContext::get(loc).core_var(ir::VarKind::BlockNum)); }

Range::Range(Int begin, Int end, Int step, std::source_location loc)
    : begin_(std::move(begin)), end_(std::move(end)), step_(std::move(step)), src_(loc), loc_(SourceLoc::from(loc)) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  if (auto s = step_.constant()) {
    PTO_USER_CHECK(*s != 0, ctx.site(loc_)) << "pl::range needs a nonzero step, got " << *s;
  }
}

Range::Iterator Range::begin() {
  auto& ctx = TraceContext::get(std::source_location::current());
  var_ = ctx.new_var("i" + std::to_string(ctx.kernel().num_vars), ir::VarKind::Loop);
  ctx.push_scope();
  ctx.enter_loop();
  scope_depth_ = ctx.scope_depth();
  opened_ = true;
  return Iterator(this);
}

void Range::close() {
  auto& ctx = TraceContext::get(std::source_location::current());
  PTO_INTERNAL_CHECK(ctx.scope_depth() == scope_depth_) << "pl::range scope mismatch";
  ir::Stmt body = ctx.pop_scope();
  ctx.leave_loop();
  const ir::Instr instr = ctx.new_instr("range", ir::Pipe::S, src_);
  ctx.kernel().instrs[instr.id].text = "for " + ir::to_string(var_) + " in range(" + ir::to_string(begin_.expr()) + ", " +
                                       ir::to_string(end_.expr()) + ", " + ir::to_string(step_.expr()) + ")";
  ctx.emit(ir::For::make(var_, begin_.expr(), end_.expr(), step_.expr(), body, instr.id, loc_));
  closed_ = true;
}

Range::~Range() {
  if (!opened_ || closed_) return;
  TraceContext* ctx = TraceContext::current();
  if (ctx == nullptr) return;
  // The body left early: a `break`/`return`, or an exception. Drop the open scope; report the
  // early exit unless an exception is already on its way out.
  while (ctx->scope_depth() >= scope_depth_ && ctx->scope_depth() > 1) ctx->pop_scope();
  ctx->leave_loop();
  if (std::uncaught_exceptions() == 0) {
    ctx->defer_error(
        "`break` or `return` inside a pl::range body: the loop runs at run time and its body is traced once, "
        "so code after the exit would be dropped from every iteration; leave the loop at run time with pl::if_(cond, [&] { pl::break_(); })",
        loc_);
  }
}

namespace {
void emit_loop_exit(bool brk, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  PTO_USER_CHECK(ctx.open_loops() > 0, ctx.site(SourceLoc::from(loc)))
      << (brk ? "pl::break_()" : "pl::continue_()") << " outside a pl::range body: it leaves the innermost runtime loop";
  ctx.emit(ir::LoopExit::make(brk));
}
}  // namespace

void break_(std::source_location loc) { emit_loop_exit(true, loc); }
void continue_(std::source_location loc) { emit_loop_exit(false, loc); }

void if_(const Bool& cond, const std::function<void()>& then_case, std::source_location loc) {
  if_(cond, then_case, nullptr, loc);
}

void if_(const Bool& cond, const std::function<void()>& then_case, const std::function<void()>& else_case,
         std::source_location loc) {
  auto& ctx = TraceContext::get(loc);
  ctx.note(loc);
  ctx.push_scope();
  then_case();
  ir::Stmt then_body = ctx.pop_scope();
  ir::Stmt else_body;
  if (else_case) {
    ctx.push_scope();
    else_case();
    else_body = ctx.pop_scope();
  }
  ctx.emit(ir::IfThenElse::make(cond.expr(), then_body, else_body));
}

namespace {
void emit_sync(ir::SyncOp op, Pipe src, Pipe dst, const Int& event, int limit, const std::source_location& loc) {
  auto& ctx = TraceContext::get(loc);
  const auto site = ctx.site(SourceLoc::from(loc));
  const bool flag = op == ir::SyncOp::SetFlag || op == ir::SyncOp::WaitFlag;
  if (auto e = event.constant()) {
    PTO_USER_CHECK(*e >= 0 && *e < limit, site) << ir::sync_op_name(op) << (flag ? " event id " : " mutex id ") << *e
                                                << " is out of range 0.." << limit - 1;
  }
  if (flag) {
    PTO_USER_CHECK(src != Pipe::ALL && dst != Pipe::ALL && src != dst, site)
        << ir::sync_op_name(op) << " needs two different pipes, got " << ir::pipe_name(src) << " -> " << ir::pipe_name(dst);
  } else if (op != ir::SyncOp::Barrier) {
    PTO_USER_CHECK(src != Pipe::ALL, site) << ir::sync_op_name(op) << " needs one pipe, not ALL";
  }
  const Pipe on = op == ir::SyncOp::WaitFlag ? dst : src;
  ctx.emit(ir::Sync::make(op, src, dst, event.expr(), ir::TileRef{}, ctx.new_instr(ir::sync_op_name(op), on, loc)));
}
}  // namespace

void set_flag(Pipe src, Pipe dst, Int event, std::source_location loc) { emit_sync(ir::SyncOp::SetFlag, src, dst, event, 16, loc); }
void wait_flag(Pipe src, Pipe dst, Int event, std::source_location loc) { emit_sync(ir::SyncOp::WaitFlag, src, dst, event, 16, loc); }
void pipe_barrier(Pipe pipe, std::source_location loc) { emit_sync(ir::SyncOp::Barrier, pipe, pipe, 0, 1, loc); }
void mutex_lock(Int id, Pipe pipe, std::source_location loc) { emit_sync(ir::SyncOp::MutexLock, pipe, pipe, id, 32, loc); }
void mutex_unlock(Int id, Pipe pipe, std::source_location loc) { emit_sync(ir::SyncOp::MutexUnlock, pipe, pipe, id, 32, loc); }

namespace detail {
const TilingKey& current_tiling_key(const std::source_location& loc) {
  static const TilingKey none;
  const TilingKey* key = TraceContext::get(loc).tiling_key();
  return key ? *key : none;
}
}  // namespace detail

void require(bool cond, const std::string& why, std::source_location loc) {
  auto& ctx = TraceContext::get(loc);
  PTO_USER_CHECK(cond, ctx.site(SourceLoc::from(loc))) << why;
}

}  // namespace pto::lang
