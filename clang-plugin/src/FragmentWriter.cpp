#include "FragmentWriter.h"

#include "manifest_generated.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

namespace rcplugin {

namespace fb = flatbuffers;
namespace rm = rc::manifest;

static fb::Offset<rm::Param> writeParam(fb::FlatBufferBuilder &b,
                                        const ParamModel &p) {
  auto name = b.CreateString(p.name);
  auto type = b.CreateString(p.type);
  auto ptrs = b.CreateVector(p.pointerOffsets);
  return rm::CreateParam(b, name, type, p.offset, p.size, p.align,
                         static_cast<rm::ParamKind>(p.kind), ptrs);
}

static fb::Offset<rm::Kernel> writeKernel(fb::FlatBufferBuilder &b,
                                          const KernelModel &k) {
  std::vector<fb::Offset<rm::Param>> params;
  for (const ParamModel &p : k.params)
    params.push_back(writeParam(b, p));
  std::vector<fb::Offset<rm::LaunchSite>> sites;
  for (const LaunchSiteInfo &s : k.launchSites)
    sites.push_back(rm::CreateLaunchSite(b, b.CreateString(s.file), s.line,
                                         s.column, b.CreateString(s.how)));
  auto name = b.CreateString(k.name);
  auto demangled = b.CreateString(k.demangled);
  auto paramVec = b.CreateVector(params);
  auto siteVec = b.CreateVector(sites);
  return rm::CreateKernel(b, k.id, name, demangled, k.internal,
                          /*module_index=*/0, paramVec, k.argsSize, siteVec);
}

std::vector<uint8_t> serializeFragment(const Fragment &f) {
  fb::FlatBufferBuilder b;
  std::vector<KernelModel> kernels = f.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelModel &x, const KernelModel &y) {
              return std::tie(x.id, x.name) < std::tie(y.id, y.name);
            });
  std::vector<fb::Offset<rm::Kernel>> kernelOffs;
  for (const KernelModel &k : kernels)
    kernelOffs.push_back(writeKernel(b, k));

  std::vector<VariableInfo> vars = f.variables;
  std::sort(vars.begin(), vars.end(),
            [](const VariableInfo &x, const VariableInfo &y) {
              return std::tie(x.id, x.name) < std::tie(y.id, y.name);
            });
  std::vector<fb::Offset<rm::Variable>> varOffs;
  for (const VariableInfo &v : vars)
    varOffs.push_back(rm::CreateVariable(
        b, v.id, b.CreateString(v.name), b.CreateString(v.demangled),
        v.internal, v.size, static_cast<rm::VarKind>(v.kind),
        /*module_index=*/0));

  auto source = b.CreateString(f.source);
  auto fatbin = b.CreateVector(std::vector<uint8_t>{});
  std::vector<fb::Offset<rm::Module>> modules{
      rm::CreateModule(b, source, /*fatbin_hash=*/0, fatbin)};
  auto moduleVec = b.CreateVector(modules);
  // Already in id order; the sorted-tables call also documents (and keeps)
  // the LookupByKey requirement.
  auto kernelVec = b.CreateVectorOfSortedTables(&kernelOffs);
  auto varVec = b.CreateVector(varOffs);
  rm::FinishManifestBuffer(b, rm::CreateManifest(b, /*format_version=*/1,
                                                 moduleVec, kernelVec, varVec));
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
}

bool writeBytes(const std::string &path, const std::vector<uint8_t> &bytes,
                std::string *error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    *error = "cannot open '" + path + "' for writing: " + ec.message();
    return false;
  }
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  os.close();
  if (os.has_error()) {
    *error = "cannot write '" + path + "': " + os.error().message();
    os.clear_error();
    return false;
  }
  return true;
}

} // namespace rcplugin
