#include "ParamLayout.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecordLayout.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;

namespace rcplugin {

static bool isPointerLike(QualType t) {
  // References travel as pointers; object and function pointers are
  // addresses the server must see unchanged (and may need to translate).
  return t->isPointerType() || t->isReferenceType() || t->isBlockPointerType();
}

// Appends the offsets (relative to base) of every pointer inside t.
static void collectPointers(ASTContext &ctx, QualType t, uint64_t base,
                            std::vector<uint32_t> &out) {
  t = t.getCanonicalType();
  if (isPointerLike(t)) {
    out.push_back(static_cast<uint32_t>(base));
    return;
  }
  if (const auto *arr = ctx.getAsConstantArrayType(t)) {
    QualType elt = arr->getElementType();
    uint64_t eltSize = ctx.getTypeSizeInChars(elt).getQuantity();
    std::vector<uint32_t> inner;
    collectPointers(ctx, elt, 0, inner);
    if (inner.empty())
      return;
    uint64_t n = arr->getSize().getZExtValue();
    for (uint64_t i = 0; i < n; ++i)
      for (uint32_t off : inner)
        out.push_back(static_cast<uint32_t>(base + i * eltSize + off));
    return;
  }
  const auto *rt = t->getAs<RecordType>();
  if (!rt)
    return;
  const RecordDecl *rd = rt->getDecl()->getDefinition();
  if (!rd)
    return;
  const ASTRecordLayout &layout = ctx.getASTRecordLayout(rd);
  if (const auto *cxx = dyn_cast<CXXRecordDecl>(rd)) {
    for (const CXXBaseSpecifier &b : cxx->bases()) {
      const CXXRecordDecl *bd = b.getType()->getAsCXXRecordDecl();
      if (!bd)
        continue;
      CharUnits off = b.isVirtual() ? layout.getVBaseClassOffset(bd)
                                    : layout.getBaseClassOffset(bd);
      collectPointers(ctx, b.getType(), base + off.getQuantity(), out);
    }
  }
  for (const FieldDecl *f : rd->fields()) {
    if (f->isBitField())
      continue;
    uint64_t bits = layout.getFieldOffset(f->getFieldIndex());
    collectPointers(ctx, f->getType(), base + bits / 8, out);
  }
}

void computeParamLayout(ASTContext &ctx, const FunctionDecl *fd,
                        KernelModel &k) {
  uint64_t end = 0;
  PrintingPolicy pp(ctx.getLangOpts());
  for (const ParmVarDecl *p : fd->parameters()) {
    QualType t = p->getType();
    // A reference parameter is passed as a pointer in the buffer.
    QualType slot =
        t->isReferenceType() ? ctx.getPointerType(t.getNonReferenceType()) : t;
    ParamModel pi;
    pi.name = p->getName().str();
    pi.type = t.getAsString(pp);
    uint64_t size = ctx.getTypeSizeInChars(slot).getQuantity();
    uint64_t align = ctx.getTypeAlignInChars(slot).getQuantity();
    uint64_t offset = llvm::alignTo(end, align ? align : 1);
    pi.offset = static_cast<uint32_t>(offset);
    pi.size = static_cast<uint32_t>(size);
    pi.align = static_cast<uint32_t>(align);
    if (isPointerLike(t.getCanonicalType())) {
      pi.kind = ParamKind::Pointer;
      pi.pointerOffsets.push_back(0);
    } else if (t->isRecordType() || t->isArrayType()) {
      pi.kind = ParamKind::Aggregate;
      collectPointers(ctx, slot, 0, pi.pointerOffsets);
    } else {
      pi.kind = ParamKind::Value;
    }
    end = offset + size;
    k.params.push_back(std::move(pi));
  }
  k.argsSize = static_cast<uint32_t>(end);
}

} // namespace rcplugin
