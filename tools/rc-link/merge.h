// `rc-link merge`: all fragments of a linked binary (or given fragment
// files) -> one manifest with renumbered modules and kernels sorted by ID.
#ifndef RC_LINK_MERGE_H
#define RC_LINK_MERGE_H

#include <cstdint>
#include <string>
#include <vector>

namespace rc::link {

// Merges verified fragments; modules are numbered in (source, fatbin hash)
// order, not link order. On an ID collision (same ID, different symbol)
// returns false with *error naming both symbols and their sources. Kernels
// seen twice under the same name (inline/template kernels instantiated in
// several TUs) are kept once.
bool mergeFragments(const std::vector<std::vector<uint8_t>> &fragments,
                    std::vector<uint8_t> &out, std::string *error);

// merge --binary: returns the exit code.
int mergeBinary(const std::string &binary, const std::string &output,
                bool keepSection);
// merge --fragments: each file is a manifest or framed fragments.
int mergeFiles(const std::vector<std::string> &files,
               const std::string &output);

} // namespace rc::link

#endif
