#include "verify.h"

#include "rc/manifest_check.h"

#include <cstdio>

namespace rc::tools {

bool verifyManifest(const LoadedManifest &lm) {
  // Here a module that cannot be checked fails too: verify promises that
  // every layout was compared.
  ManifestCheck check = checkManifest(*lm.root);
  for (const ManifestProblem &p : check.problems)
    std::printf("%s: %s\n", lm.path.c_str(), p.text.c_str());
  for (const std::string &note : check.notes)
    std::printf("%s: note: %s\n", lm.path.c_str(), note.c_str());
  if (!check.problems.empty()) {
    std::printf("%s: FAILED: %zu mismatch(es) in %u kernel(s)\n",
                lm.path.c_str(), check.problems.size(), check.kernelsChecked);
    return false;
  }
  std::string archList;
  for (uint32_t a : check.archs)
    archList += (archList.empty() ? "" : ",") + ("sm_" + std::to_string(a));
  std::string varText;
  if (check.variables)
    varText = ", " + std::to_string(check.variables) + " variable(s)";
  if (check.droppedVariables)
    varText += " (" + std::to_string(check.droppedVariables) +
               " unused internal one(s) not in the cubins)";
  size_t withoutCode = check.kernelsWithoutDeviceCode.size();
  std::string withoutText;
  if (withoutCode)
    withoutText = ", " + std::to_string(withoutCode) + " without device code";
  std::printf("%s: OK: %zu kernel(s) match their cubins (%s)%s%s\n",
              lm.path.c_str(), check.kernelsChecked - withoutCode,
              archList.empty() ? "no kernels" : archList.c_str(),
              withoutText.c_str(), varText.c_str());
  return true;
}

} // namespace rc::tools
