#include "CodeGen.hpp"

namespace pto::backend::codegen {

Value* CodeGen::streams(int tensor, int64_t es) {
  const auto& t = k_.tensors[static_cast<size_t>(tensor)];
  Value* bytes = b_.getInt64(es);
  for (int d = 0; d < t.rank; ++d) bytes = b_.CreateMul(bytes, scalar(ir::tensor_extent(t, d)));
  return b_.CreateICmpSGE(bytes, b_.getInt64(kStreamingStoreBytes));
}

void CodeGen::copy_elements(Value* gm, Value* row_stride, Value* col_stride, Value* tile, int64_t tile_pitch, Value* rows, Value* cols,
                            int64_t es, bool to_tile) {
  llvm::Type* et = b_.getIntNTy(static_cast<unsigned>(es * 8));
  counted_loop(rows, [&](Value* r) {
    Value* g_row = b_.CreateInBoundsGEP(et, gm, b_.CreateMul(r, row_stride));
    Value* t_row = b_.CreateInBoundsGEP(et, tile, b_.CreateMul(r, b_.getInt64(tile_pitch)));
    counted_loop(cols, [&](Value* c) {
      Value* g = b_.CreateInBoundsGEP(et, g_row, b_.CreateMul(c, col_stride));
      Value* t = b_.CreateInBoundsGEP(et, t_row, c);
      if (to_tile) {
        b_.CreateStore(b_.CreateLoad(et, g), t);
      } else {
        b_.CreateStore(b_.CreateLoad(et, t), g);
      }
    }, "elem");
  }, "erow");
}

void CodeGen::copy_rows(Value* gm, Value* gm_pitch, Value* tile, int64_t tile_pitch, Value* rows, Value* cols, int64_t es,
                        bool to_tile, Value* streaming) {
  Value* bytes = b_.CreateMul(cols, b_.getInt64(es));
  auto copy_row = [&](Value* g, Value* t, bool stream) {
    if (to_tile) {  // loads: the host's memcpy (measured faster than an 8-stream interleaved copy)
      b_.CreateMemCpy(t, llvm::MaybeAlign(32), g, llvm::MaybeAlign(es), bytes);
    } else if (stream) {
      rt_call(offsetof(RuntimeFunctions, stream_to_gm), b_.getVoidTy(), {b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty()}, {g, t, bytes});
    } else {
      b_.CreateMemCpy(g, llvm::MaybeAlign(es), t, llvm::MaybeAlign(32), bytes);
    }
  };
  auto* fixed = llvm::dyn_cast<llvm::ConstantInt>(streaming);
  counted_loop(rows, [&](Value* r) {
    Value* g = b_.CreateInBoundsGEP(b_.getInt8Ty(), gm, b_.CreateMul(r, b_.CreateMul(gm_pitch, b_.getInt64(es))));
    Value* t = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile, b_.CreateMul(r, b_.getInt64(tile_pitch * es)));
    if (fixed) return copy_row(g, t, !fixed->isZero());
    // A dynamic tensor: its size decides at run time (the branch is the same for every row).
    auto* stream = BasicBlock::Create(c_, "row.stream", fn_);
    auto* plain = BasicBlock::Create(c_, "row.plain", fn_);
    auto* done = BasicBlock::Create(c_, "row.done", fn_);
    b_.CreateCondBr(streaming, stream, plain);
    b_.SetInsertPoint(stream);
    copy_row(g, t, true);
    b_.CreateBr(done);
    b_.SetInsertPoint(plain);
    copy_row(g, t, false);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }, "row");
}

void CodeGen::prefetch(const ir::Load* op) {
  const auto& g = group(op->dst);
  const Region whole = region(op->src);
  if (!whole.unit_columns()) return;  // a column-strided view: no runs of lines to hint
  const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
  Value* off[2];
  Value* ext[2];
  for (int d = 0; d < 2; ++d) {
    Value* lo = b_.getInt64(0);
    off[d] = scalar(op->src.offset[d]);
    off[d] = b_.CreateSelect(b_.CreateICmpSLT(off[d], lo), lo, off[d]);
    ext[d] = scalar(op->src.extent[d]);
    Value* room = b_.CreateSub(scalar(op->src.view[d]), off[d]);
    ext[d] = b_.CreateSelect(b_.CreateICmpSLT(room, ext[d]), room, ext[d]);
    ext[d] = b_.CreateSelect(b_.CreateICmpSLT(ext[d], lo), lo, ext[d]);
  }
  Region reg = whole;
  for (int d = 0; d < 2; ++d) reg.off[d] = off[d], reg.ext[d] = ext[d];
  Value* base = gm_address(op->src, reg, es);
  Value* row_bytes = b_.CreateMul(ext[1], b_.getInt64(es));
  Value* lines = b_.CreateUDiv(b_.CreateAdd(row_bytes, b_.getInt64(63)), b_.getInt64(64));
  counted_loop(ext[0], [&](Value* r) {
    Value* row = b_.CreateInBoundsGEP(b_.getInt8Ty(), base, b_.CreateMul(r, b_.CreateMul(reg.stride[0], b_.getInt64(es))));
    counted_loop(lines, [&](Value* l) {
      Value* p = b_.CreateGEP(b_.getInt8Ty(), row, b_.CreateMul(l, b_.getInt64(64)));
      b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()}, {p, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
    }, "pf");
  }, "pfrow");
}

void CodeGen::load(const ir::Load* op) {
  const auto& g = group(op->dst);
  const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
  const Region reg = region(op->src);
  if (elision_.loads.count(op)) {  // its readers read the region itself (LoadElision.hpp)
    elided_[op] = {gm_address(op->src, reg, es), reg.stride[0]};
  } else if (reg.unit_columns()) {
    copy_rows(gm_address(op->src, reg, es), reg.stride[0], tile_base(op->dst), g.cols, reg.ext[0], reg.ext[1], es, true,
              streams(op->src.tensor, es));
  } else {
    copy_elements(gm_address(op->src, reg, es), reg.stride[0], reg.stride[1], tile_base(op->dst), g.cols, reg.ext[0], reg.ext[1], es, true);
  }
  set_valid(op->dst, reg.ext[0], reg.ext[1]);
  if (instrument_) {
    auto [lo, hi] = gm_interval(op->src, reg);
    report(op, op->id, b_.CreateMul(b_.CreateMul(reg.ext[0], reg.ext[1]), b_.getInt64(moved_bytes(1, es, reg.unit_columns()))), lo, hi);
  }
}

void CodeGen::store(const ir::Store* op) {
  const auto& g = group(op->src);
  const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
  const Region reg = region(op->dst);
  const DType to = k_.tensors[op->dst.tensor].dtype;
  const int64_t tes = static_cast<int64_t>(dtype_size(to));
  Value* scale = op->scale ? broadcast_scalar(op->scale, b_.getFloatTy()) : nullptr;
  if (const auto fwd = forwarding_.stores.find(op); fwd != forwarding_.stores.end()) {
    const ForwardedStore f = forwarded_store_begin(op, fwd->second, reg, es, {});
    forwarded_store_rows(f, b_.getInt64(0), f.loop.ext.rows);
    forwarded_store_end(f);
  } else if (op->atomic_add) {
    auto* ptr = b_.getPtrTy();
    auto* i32 = b_.getInt32Ty();
    auto* i64 = b_.getInt64Ty();
    rt_call(offsetof(RuntimeFunctions, atomic_add_rows), b_.getVoidTy(), {ptr, i64, i32, ptr, i64, i32, i64, i64, i32, i32, b_.getFloatTy()},
                                  {gm_address(op->dst, reg, tes), reg.stride[0], b_.getInt32(static_cast<int32_t>(to)),
                                   tile_base(op->src), b_.getInt64(g.cols), b_.getInt32(static_cast<int32_t>(g.dtype)), reg.ext[0],
                                   reg.ext[1], b_.getInt32(op->relu ? 1 : 0), b_.getInt32(scale ? 1 : 0),
                                   scale ? scale : llvm::ConstantFP::get(b_.getFloatTy(), 1.0)});
  } else if (to == g.dtype && !op->relu && !scale) {
    if (reg.unit_columns()) {
      copy_rows(gm_address(op->dst, reg, es), reg.stride[0], tile_base(op->src), g.cols, reg.ext[0], reg.ext[1], es, false,
                streams(op->dst.tensor, tes));
    } else {
      copy_elements(gm_address(op->dst, reg, es), reg.stride[0], reg.stride[1], tile_base(op->src), g.cols, reg.ext[0], reg.ext[1], es, false);
    }
  } else {
    convert_rows(gm_address(op->dst, reg, tes), reg.stride[0], reg.stride[1], to, tile_base(op->src), g.cols, g.dtype, reg.ext[0], reg.ext[1],
                 op->relu, scale);
  }
  store_report(op, reg);
}

void CodeGen::store_report(const ir::Store* op, const Region& reg) {
  if (!instrument_) return;
  const int64_t tes = static_cast<int64_t>(dtype_size(k_.tensors[op->dst.tensor].dtype));
  auto [lo, hi] = gm_interval(op->dst, reg);
  report(op, op->id, b_.CreateMul(b_.CreateMul(reg.ext[0], reg.ext[1]), b_.getInt64(moved_bytes(1, tes, reg.unit_columns()))), lo, hi);
}

CodeGen::ForwardedStore CodeGen::forwarded_store_begin(const ir::Store* op, const ir::VecCompute* v, const Region& reg, int64_t es,
                                                       std::span<const GMRead> other_reads) {
  ForwardedStore f{.op = op, .v = v, .reg = reg, .es = es, .loop = tile_expr_loop(v, value_of(v), v->dst, v->extent)};
  const TileExprLoop& loop = f.loop;
  f.gm = gm_address(op->dst, reg, es);
  // Bytes from a region's first element to one past its last: `rows` rows of `cols` a `pitch` apart.
  auto end_of = [&](Value* first, Value* pitch, Value* rows, Value* cols, int64_t bytes) {
    Value* last_row = b_.CreateMul(b_.CreateSub(rows, b_.getInt64(1)), pitch);
    return b_.CreateAdd(b_.CreatePtrToInt(first, b_.getInt64Ty()), b_.CreateMul(b_.CreateAdd(last_row, cols), b_.getInt64(bytes)));
  };
  Value* lo = b_.CreatePtrToInt(f.gm, b_.getInt64Ty());
  Value* hi = end_of(f.gm, reg.stride[0], loop.ext.rows, loop.ext.cols, es);
  auto apart_from = [&](const GMRead& read) {
    Value* rlo = b_.CreatePtrToInt(read.base, b_.getInt64Ty());
    return b_.CreateOr(b_.CreateICmpULE(hi, rlo), b_.CreateICmpULE(end_of(read.base, read.pitch, read.rows, read.cols, read.elem_bytes), lo));
  };
  f.direct = b_.CreateAnd(b_.CreateICmpEQ(reg.ext[0], loop.ext.rows), b_.CreateICmpEQ(reg.ext[1], loop.ext.cols));
  for (const auto& [leaf, base] : loop.bases) {  // the GM regions it reads (elided loads) lie apart from it
    const GMRows* read = elided_read(leaf);
    if (!read) continue;
    f.direct = b_.CreateAnd(f.direct, apart_from({base, read->pitch, loop.ext.rows, loop.ext.cols, es}));
  }
  for (const GMRead& read : other_reads) f.direct = b_.CreateAnd(f.direct, apart_from(read));
  // Into GM: when the store streams past the host's caches, its rows' whole lines with
  // non-temporal stores (plain stores into GM would read every line first).
  f.streaming = streams(op->dst.tensor, es);
  return f;
}

void CodeGen::forwarded_store_rows(const ForwardedStore& f, Value* first, Value* count) {
  const auto& g = group(f.op->src);
  expr_stmt_ = f.v;  // its elided reads (elided_read)
  auto* fixed = llvm::dyn_cast<llvm::ConstantInt>(f.streaming);
  Value* streamed = fixed && fixed->isZero() ? nullptr : b_.CreateAnd(f.direct, f.streaming);  // no line stores in a kernel that never streams
  compute_rows(f.v, f.loop, b_.CreateSelect(f.direct, f.gm, f.loop.dst), b_.CreateSelect(f.direct, f.reg.stride[0], b_.getInt64(g.cols)),
               first, count, streamed);
}

void CodeGen::forwarded_store_end(const ForwardedStore& f) {
  const auto& g = group(f.op->src);
  auto* copy = BasicBlock::Create(c_, "fwd.copy", fn_);
  auto* done = BasicBlock::Create(c_, "fwd.done", fn_);
  b_.CreateCondBr(f.direct, done, copy);
  b_.SetInsertPoint(copy);
  copy_rows(f.gm, f.reg.stride[0], f.loop.dst, g.cols, f.reg.ext[0], f.reg.ext[1], f.es, false, f.streaming);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void CodeGen::convert_rows(Value* gm, Value* gm_pitch, Value* gm_col_stride, DType to, Value* tile, int64_t tile_pitch, DType from, Value* rows,
                           Value* cols, bool relu, Value* scale) {
  llvm::Type* ft = storage_type(from);
  llvm::Type* tt = storage_type(to);
  counted_loop(rows, [&](Value* r) {
    Value* src = b_.CreateInBoundsGEP(ft, tile, b_.CreateMul(r, b_.getInt64(tile_pitch)));
    Value* dst = b_.CreateInBoundsGEP(tt, gm, b_.CreateMul(r, gm_pitch));
    counted_loop(cols, [&](Value* c) {
      Value* v = widen(b_.CreateLoad(ft, b_.CreateInBoundsGEP(ft, src, c)), from);
      if (relu) {  // x > 0 ? x : 0 (a NaN and -0 give +0), before the conversion
        const bool fp = v->getType()->isFloatingPointTy();
        Value* zero = fp ? static_cast<Value*>(llvm::ConstantFP::get(v->getType(), 0.0)) : b_.getInt32(0);
        v = b_.CreateSelect(fp ? b_.CreateFCmpOGT(v, zero) : b_.CreateICmpSGT(v, zero), v, zero);
      }
      if (scale) {  // x * scale in float, then the conversion (ir::Store::scale)
        Value* f = v->getType()->isFloatingPointTy() ? v : b_.CreateSIToFP(v, b_.getFloatTy());
        b_.CreateStore(narrow(convert(b_.CreateFMul(f, scale), DType::f32, to), to), b_.CreateInBoundsGEP(tt, dst, b_.CreateMul(c, gm_col_stride)));
        return;
      }
      b_.CreateStore(narrow(convert(v, from, to), to), b_.CreateInBoundsGEP(tt, dst, b_.CreateMul(c, gm_col_stride)));
    }, "cvt");
  }, "cvtrow");
}

void CodeGen::move(const ir::Move* op) {
  if (op->attrs.cross_core) return group(op->src).space == ir::MemSpace::Acc ? move_acc_to_vec(op) : move_vec_to_mat(op);
  const auto& sg = group(op->src);
  const auto& dg = group(op->dst);
  const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
  const bool transpose = op->attrs.transpose;
  Value* rows = scalar(op->attrs.extent[0]);  // insert_checks: checked, cut to a window
  Value* cols = scalar(op->attrs.extent[1]);
  // The source's rows: its slot, or the GM region of its elided load (LoadElision.hpp).
  const auto gm = elision_.moves.find(op);
  const bool from_gm = gm != elision_.moves.end();
  Value* src = from_gm ? elided_.at(gm->second).base : tile_base(op->src);
  Value* src_pitch = from_gm ? elided_.at(gm->second).pitch : b_.getInt64(sg.cols);
  if (op->attrs.window) {
    Value* first = b_.CreateAdd(b_.CreateMul(scalar(op->attrs.offset[0]), src_pitch), scalar(op->attrs.offset[1]));
    src = b_.CreateInBoundsGEP(b_.getInt8Ty(), src, b_.CreateMul(first, b_.getInt64(es)));
  }
  Value* out_rows = transpose ? cols : rows;
  Value* out_cols = transpose ? rows : cols;
  Value* dst = tile_base(op->dst);
  if (elision_.forwarded.count(op)) {  // the matmuls after it read the region itself
    elided_moves_[op] = {src, src_pitch};
  } else if (transpose) {
    transpose_tile(dst, dg.cols, src, src_pitch, rows, cols, storage_type(sg.dtype));
  } else if (from_gm) {
    copy_rows(src, src_pitch, dst, dg.cols, rows, cols, es, true, b_.getFalse());
  } else {
    copy_tile_rows(dst, dg.cols, src, sg.cols, rows, cols, es);
  }
  set_valid(op->dst, out_rows, out_cols);
  report(op, op->id, b_.CreateMul(b_.CreateMul(rows, cols), b_.getInt64(es)));
}

void CodeGen::transpose_tile(Value* dst, int64_t dst_pitch, Value* src, Value* src_pitch, Value* rows, Value* cols, llvm::Type* et) {
  // Blocks of 8 x 8: eight row vectors loaded, transposed in registers by three rounds of
  // two-input shuffles, stored as eight column vectors (element by element, the vectoriser made
  // it one scatter per 8 elements: a tenth of flash attention's time on the K^T move).
  constexpr int64_t kB = 8;
  auto* vt = llvm::FixedVectorType::get(et, kB);
  const llvm::Align align(et->getPrimitiveSizeInBits() / 8);
  auto elem = [&](Value* base, Value* pitch, Value* r, Value* c) {
    return b_.CreateInBoundsGEP(et, base, b_.CreateAdd(b_.CreateMul(r, pitch), c));
  };
  Value* dpitch = b_.getInt64(dst_pitch);
  auto shuffle = [&](Value* a, Value* b, std::initializer_list<int> mask) { return b_.CreateShuffleVector(a, b, mask); };
  Value* full_rows = b_.CreateAnd(rows, b_.getInt64(~(kB - 1)));
  Value* full_cols = b_.CreateAnd(cols, b_.getInt64(~(kB - 1)));
  counted_loop(b_.CreateUDiv(full_rows, b_.getInt64(kB)), [&](Value* rb) {
    Value* r0 = b_.CreateMul(rb, b_.getInt64(kB));
    counted_loop(b_.CreateUDiv(full_cols, b_.getInt64(kB)), [&](Value* cb) {
      Value* c0 = b_.CreateMul(cb, b_.getInt64(kB));
      Value* v[kB];
      for (int64_t i = 0; i < kB; ++i) v[i] = b_.CreateAlignedLoad(vt, elem(src, src_pitch, b_.CreateAdd(r0, b_.getInt64(i)), c0), align);
      Value* a[kB];  // a[2k] = rows 2k, 2k+1 interleaved at even columns, a[2k+1] at odd ones
      for (int k = 0; k < 4; ++k) {
        a[2 * k] = shuffle(v[2 * k], v[2 * k + 1], {0, 8, 2, 10, 4, 12, 6, 14});
        a[2 * k + 1] = shuffle(v[2 * k], v[2 * k + 1], {1, 9, 3, 11, 5, 13, 7, 15});
      }
      Value* q[kB];  // q[4h + j]: rows 4h..4h+3 of columns j and j + 4
      for (int h = 0; h < 2; ++h) {
        for (int odd = 0; odd < 2; ++odd) {
          Value* x = a[4 * h + odd];
          Value* y = a[4 * h + 2 + odd];
          q[4 * h + odd] = shuffle(x, y, {0, 1, 8, 9, 4, 5, 12, 13});
          q[4 * h + 2 + odd] = shuffle(x, y, {2, 3, 10, 11, 6, 7, 14, 15});
        }
      }
      for (int j = 0; j < 4; ++j) {  // column j and column j + 4: rows 0..3 then 4..7
        Value* lo = shuffle(q[j], q[4 + j], {0, 1, 2, 3, 8, 9, 10, 11});
        Value* hi = shuffle(q[j], q[4 + j], {4, 5, 6, 7, 12, 13, 14, 15});
        b_.CreateAlignedStore(lo, elem(dst, dpitch, b_.CreateAdd(c0, b_.getInt64(j)), r0), align);
        b_.CreateAlignedStore(hi, elem(dst, dpitch, b_.CreateAdd(c0, b_.getInt64(j + 4)), r0), align);
      }
    }, "mvtb");
  }, "mvtbrow");
  // The rest one element at a time: the last columns of the full rows, then the last rows.
  auto scalar_part = [&](Value* r_begin, Value* r_end, Value* c_begin) {
    counted_loop(b_.CreateSub(r_end, r_begin), [&](Value* i) {
      Value* r = b_.CreateAdd(r_begin, i);
      counted_loop(b_.CreateSub(cols, c_begin), [&](Value* j) {
        Value* c = b_.CreateAdd(c_begin, j);
        b_.CreateStore(b_.CreateLoad(et, elem(src, src_pitch, r, c)), elem(dst, dpitch, c, r));
      }, "mvt");
    }, "mvtrow");
  };
  scalar_part(b_.getInt64(0), full_rows, full_cols);
  scalar_part(full_rows, rows, b_.getInt64(0));
}

void CodeGen::move_acc_to_vec(const ir::Move* op) {
  const auto& sg = group(op->src);
  const auto& dg = group(op->dst);
  Value* rows = valid(op->src, 0);
  Value* cols = valid(op->src, 1);
  const int64_t ses = static_cast<int64_t>(dtype_size(sg.dtype));
  for (int s = 0; s < 2; ++s) {  // each receiving AIV's part (insert_checks: the split and that it fits)
    const auto& part = op->attrs.parts[s];
    if (!part[0]) continue;
    Value* r0 = scalar(part[0]);
    Value* c0 = scalar(part[2]);
    Value* src = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile_base(op->src),
                                      b_.CreateMul(b_.CreateAdd(b_.CreateMul(r0, b_.getInt64(sg.cols)), c0), b_.getInt64(ses)));
    convert_rows(tile_base_in(peer_arena(s), op->dst), b_.getInt64(dg.cols), b_.getInt64(1), dg.dtype, src, sg.cols, sg.dtype, scalar(part[1]), scalar(part[3]));
  }
  report(op, op->id, b_.CreateMul(b_.CreateMul(rows, cols), b_.getInt64(static_cast<int64_t>(dtype_size(dg.dtype)))));
}

void CodeGen::move_vec_to_mat(const ir::Move* op) {
  const auto& sg = group(op->src);
  const auto& dg = group(op->dst);
  const int64_t es = static_cast<int64_t>(dtype_size(sg.dtype));
  Value* ext[2] = {valid(op->src, 0), valid(op->src, 1)};
  Value* off[2] = {scalar(op->attrs.offset[0]), scalar(op->attrs.offset[1])};  // checked by insert_checks
  Value* src = tile_base(op->src);
  Value* dst = b_.CreateInBoundsGEP(b_.getInt8Ty(), tile_base_in(peer_arena(0), op->dst),
                                    b_.CreateMul(b_.CreateAdd(b_.CreateMul(off[0], b_.getInt64(dg.cols)), off[1]), b_.getInt64(es)));
  copy_tile_rows(dst, dg.cols, src, sg.cols, ext[0], ext[1], es);
  // The race checker gets the rectangle written, flattened over the destination tile's rows
  // (the two AIVs of a block fill disjoint parts of one slot).
  Value* lo = b_.CreateAdd(b_.CreateMul(off[0], b_.getInt64(dg.cols)), off[1]);
  Value* last_row = b_.CreateSub(b_.CreateAdd(off[0], ext[0]), b_.getInt64(1));
  Value* hi = b_.CreateAdd(b_.CreateAdd(b_.CreateMul(last_row, b_.getInt64(dg.cols)), off[1]), ext[1]);
  Value* empty = b_.CreateOr(b_.CreateICmpEQ(ext[0], b_.getInt64(0)), b_.CreateICmpEQ(ext[1], b_.getInt64(0)));
  report(op, op->id, b_.CreateMul(b_.CreateMul(ext[0], ext[1]), b_.getInt64(es)), lo, b_.CreateSelect(empty, lo, hi));
}

void CodeGen::copy_tile_rows(Value* dst, int64_t dst_pitch, Value* src, int64_t src_pitch, Value* rows, Value* cols, int64_t es) {
  if (dst_pitch == src_pitch) {  // whole rows of equal pitch are one run: one copy, not one call a row
    auto* whole = BasicBlock::Create(c_, "mv.whole", fn_);
    auto* by_row = BasicBlock::Create(c_, "mv.rows", fn_);
    auto* done = BasicBlock::Create(c_, "mv.done", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(cols, b_.getInt64(src_pitch)), whole, by_row);
    b_.SetInsertPoint(whole);
    b_.CreateMemCpy(dst, llvm::MaybeAlign(es), src, llvm::MaybeAlign(es), b_.CreateMul(rows, b_.getInt64(src_pitch * es)));
    b_.CreateBr(done);
    b_.SetInsertPoint(by_row);
    copy_tile_row_by_row(dst, dst_pitch, src, src_pitch, rows, cols, es);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return;
  }
  copy_tile_row_by_row(dst, dst_pitch, src, src_pitch, rows, cols, es);
}

void CodeGen::copy_tile_row_by_row(Value* dst, int64_t dst_pitch, Value* src, int64_t src_pitch, Value* rows, Value* cols, int64_t es) {
  counted_loop(rows, [&](Value* r) {
    Value* s = b_.CreateInBoundsGEP(b_.getInt8Ty(), src, b_.CreateMul(r, b_.getInt64(src_pitch * es)));
    Value* d = b_.CreateInBoundsGEP(b_.getInt8Ty(), dst, b_.CreateMul(r, b_.getInt64(dst_pitch * es)));
    b_.CreateMemCpy(d, llvm::MaybeAlign(es), s, llvm::MaybeAlign(es), b_.CreateMul(cols, b_.getInt64(es)));
  }, "mvrow");
}

void CodeGen::set_valid_shape(const ir::SetValid* op) {
  set_valid(op->tile, scalar(op->rows), scalar(op->cols));  // checked by insert_checks
  report(op, op->id, b_.getInt64(1));
}

void CodeGen::matmul(const ir::Matmul* op) {
  const auto& ag = group(op->a);
  const auto& bg = group(op->b);
  const auto& cg = group(op->dst);
  Value* m = valid(op->a, 0);
  Value* kk = valid(op->a, 1);
  Value* n = valid(op->b, 1);  // checked by insert_checks
  const bool biased = op->bias.group >= 0;
  auto* ptr = b_.getPtrTy();
  auto* i64 = b_.getInt64Ty();
  auto* i32 = b_.getInt32Ty();
  if (biased) {
    rt_call(offsetof(RuntimeFunctions, matmul_bias_start), b_.getVoidTy(), {ptr, ptr, i64, i64, i64},
            {tile_base(op->dst), tile_base(op->bias), m, n, b_.getInt64(cg.cols)});
  }
  // An operand is its slot, or the GM region its forwarded move would have copied (LoadElision.hpp).
  auto operand = [&](const ir::TileRef& t, const ir::TileGroup& g) -> GMRows {
    const auto fwd = elision_.operands.find(&t);
    if (fwd == elision_.operands.end()) return {tile_base(t), b_.getInt64(g.cols)};
    return elided_moves_.at(fwd->second);
  };
  const GMRows a = operand(op->a, ag), bm = operand(op->b, bg);
  rt_call(offsetof(RuntimeFunctions, matmul), b_.getVoidTy(), {ptr, ptr, ptr, i64, i64, i64, i64, i64, i64, i32, i32},
          {tile_base(op->dst), a.base, bm.base, m, n, kk, a.pitch, bm.pitch, b_.getInt64(cg.cols), b_.getInt32(static_cast<int32_t>(ag.dtype)),
           b_.getInt32(op->accumulate || biased ? 1 : 0)});
  set_valid(op->dst, m, n);
  report(op, op->id, b_.CreateMul(b_.CreateMul(m, n), kk), m, n);  // KernelABI: a matmul reports m and n in gm_lo, gm_hi
}

}  // namespace pto::backend::codegen
