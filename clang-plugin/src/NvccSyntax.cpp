#include "NvccSyntax.h"

#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <vector>

using namespace clang;

namespace rcplugin {
namespace {

struct RawToken {
  tok::TokenKind kind;
  size_t begin;
  size_t end;
  llvm::StringRef text;
};

struct Edit {
  size_t begin;
  size_t end;
  std::string replacement;
};

std::vector<RawToken> lexRaw(llvm::StringRef text, const LangOptions &lang) {
  // An invalid file location makes each token's raw location its offset.
  Lexer lexer(SourceLocation(), lang, text.begin(), text.begin(), text.end());
  std::vector<RawToken> tokens;
  Token t;
  for (lexer.LexFromRawLexer(t); t.isNot(tok::eof); lexer.LexFromRawLexer(t)) {
    size_t begin = t.getLocation().getRawEncoding();
    size_t end = begin + t.getLength();
    tokens.push_back({t.getKind(), begin, end, text.slice(begin, end)});
  }
  return tokens;
}

bool isIdentifier(const RawToken &t, llvm::StringRef name) {
  return t.kind == tok::raw_identifier && t.text == name;
}

bool isIdentifierIn(const RawToken &t, const llvm::StringSet<> &names) {
  return t.kind == tok::raw_identifier && names.contains(t.text);
}

/// The index of the token that closes the bracket at `open`, or 0.
size_t matchingClose(const std::vector<RawToken> &tokens, size_t open) {
  tok::TokenKind openKind = tokens[open].kind;
  tok::TokenKind closeKind =
      openKind == tok::l_paren ? tok::r_paren : tok::r_square;
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    if (tokens[i].kind == openKind)
      ++depth;
    else if (tokens[i].kind == closeKind && --depth == 0)
      return i;
  }
  return 0;
}

// `__shared__ alignas(16) float x;` -> `alignas(16) __shared__ float x;`,
// `extern __shared__ alignas(16) char b[];` -> `alignas(16) extern ...`.
void moveAttributesFirst(llvm::StringRef text,
                         const std::vector<RawToken> &tokens,
                         std::vector<Edit> &edits) {
  static const llvm::StringSet<> memorySpaces = {"__shared__", "__device__",
                                                 "__constant__", "__managed__"};
  static const llvm::StringSet<> specifiers = {
      "__shared__", "__device__", "__constant__", "__managed__", "extern",
      "static",     "const",      "volatile",     "constexpr",   "inline"};
  for (size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (!isIdentifierIn(tokens[i], memorySpaces) ||
        !isIdentifier(tokens[i + 1], "alignas") ||
        tokens[i + 2].kind != tok::l_paren)
      continue;
    size_t close = matchingClose(tokens, i + 2);
    if (close == 0)
      continue;
    size_t first = i;
    while (first > 0 && isIdentifierIn(tokens[first - 1], specifiers))
      --first;
    llvm::StringRef specifierText =
        text.slice(tokens[first].begin, tokens[i].end);
    llvm::StringRef gap = text.slice(tokens[i].end, tokens[i + 1].begin);
    llvm::StringRef attribute =
        text.slice(tokens[i + 1].begin, tokens[close].end);
    edits.push_back({tokens[first].begin, tokens[close].end,
                     (attribute + gap + specifierText).str()});
    i = close;
  }
}

// clang reads `%` + letter as an operand modifier that a digit or `[` must
// follow; anywhere else (`%globaltimer`, `%clock64`) it is a PTX name that
// nvcc passes through, and `%%` is how clang passes it.
void escapePtxNames(const RawToken &literal, std::vector<Edit> &edits) {
  llvm::StringRef s = literal.text;
  for (size_t p = 0; p + 1 < s.size(); ++p) {
    if (s[p] != '%')
      continue;
    if (s[p + 1] == '%') {
      ++p;
      continue;
    }
    char after = p + 2 < s.size() ? s[p + 2] : '\0';
    if (llvm::isAlpha(s[p + 1]) && !llvm::isDigit(after) && after != '[')
      edits.push_back({literal.begin + p, literal.begin + p, "%"});
  }
}

// Within one asm statement's parentheses [open, close]: the template's PTX
// names, and the commas nvcc lets operands go without.
void fixAsmStatement(const std::vector<RawToken> &tokens, size_t open,
                     size_t close, std::vector<Edit> &edits) {
  std::vector<size_t> templateLiterals;
  std::vector<size_t> missingCommas; // after these operands' `)`
  int section = 0;                   // 0 template, 1 outputs, 2 inputs, ...
  for (size_t i = open + 1; i < close; ++i) {
    const RawToken &t = tokens[i];
    if (t.kind == tok::colon) {
      ++section;
      continue;
    }
    if (t.kind == tok::coloncolon) {
      section += 2;
      continue;
    }
    if (t.kind == tok::l_paren || t.kind == tok::l_square) {
      size_t end = matchingClose(tokens, i);
      if (end == 0 || end >= close)
        return;
      bool operandEnds = t.kind == tok::l_paren &&
                         (section == 1 || section == 2) && end + 1 < close &&
                         (tokens[end + 1].kind == tok::string_literal ||
                          tokens[end + 1].kind == tok::l_square);
      if (operandEnds)
        missingCommas.push_back(end);
      i = end;
      continue;
    }
    if (section == 0 && t.kind == tok::string_literal)
      templateLiterals.push_back(i);
  }
  if (section == 0) // basic asm: clang, like GCC, leaves `%` alone there
    return;
  for (size_t i : templateLiterals)
    escapePtxNames(tokens[i], edits);
  for (size_t i : missingCommas)
    edits.push_back({tokens[i].end, tokens[i].end, ","});
}

void fixAsmStatements(const std::vector<RawToken> &tokens,
                      std::vector<Edit> &edits) {
  static const llvm::StringSet<> asmKeywords = {"asm", "__asm__", "__asm"};
  static const llvm::StringSet<> qualifiers = {
      "volatile", "__volatile__", "__volatile", "goto",
      "inline",   "__inline__",   "__inline"};
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!isIdentifierIn(tokens[i], asmKeywords))
      continue;
    size_t open = i + 1;
    while (open < tokens.size() && isIdentifierIn(tokens[open], qualifiers))
      ++open;
    if (open >= tokens.size() || tokens[open].kind != tok::l_paren)
      continue;
    size_t close = matchingClose(tokens, open);
    if (close == 0)
      continue;
    fixAsmStatement(tokens, open, close, edits);
    i = close;
  }
}

// `<<` then `<` with only blanks or comments between: the opening of a
// launch, written apart. Not after `operator`, where `operator<< <T>` names
// a template specialization of operator<<.
bool isSplitOpening(const std::vector<RawToken> &tokens, size_t i) {
  return i + 1 < tokens.size() && tokens[i].kind == tok::lessless &&
         tokens[i + 1].kind == tok::less &&
         !(i > 0 && isIdentifier(tokens[i - 1], "operator"));
}

// Joins the two tokens [first, second] into `joined`, followed by whatever
// separated them: the length, the lines and every later offset stay.
void joinTokens(llvm::StringRef text, const RawToken &first,
                const RawToken &second, llvm::StringRef joined,
                std::vector<Edit> &edits) {
  llvm::StringRef gap = text.slice(first.end, second.begin);
  edits.push_back({first.begin, second.end, (joined + gap).str()});
}

// `kernel<< <grid, block>> >(args)`: nvcc reads a launch's chevrons written
// apart (blanks or comments between `<<` and `<`, or between `>>` and `>`);
// clang's lexer makes `<<<` and `>>>` only of adjacent characters. The
// closing one is looked for only after an opening, at the launch's own
// bracket depth, so `std::vector<std::vector<int>> >` elsewhere stays.
void joinLaunchChevrons(llvm::StringRef text,
                        const std::vector<RawToken> &tokens,
                        std::vector<Edit> &edits) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    bool split = isSplitOpening(tokens, i);
    if (!split && tokens[i].kind != tok::lesslessless)
      continue;
    if (split)
      joinTokens(text, tokens[i], tokens[i + 1], "<<<", edits);
    size_t j = split ? i + 2 : i + 1;
    for (int depth = 0; j < tokens.size(); ++j) {
      tok::TokenKind kind = tokens[j].kind;
      if (kind == tok::l_paren || kind == tok::l_square ||
          kind == tok::l_brace) {
        ++depth;
      } else if (kind == tok::r_paren || kind == tok::r_square ||
                 kind == tok::r_brace) {
        if (--depth < 0)
          break;
      } else if (depth == 0 &&
                 (kind == tok::semi || kind == tok::greatergreatergreater)) {
        break;
      } else if (depth == 0 && kind == tok::greatergreater &&
                 j + 1 < tokens.size() && tokens[j + 1].kind == tok::greater) {
        joinTokens(text, tokens[j], tokens[j + 1], ">>>", edits);
        ++j;
        break;
      }
    }
    i = j;
  }
}

} // namespace

std::optional<std::string> rewriteNvccSyntax(llvm::StringRef text,
                                             const LangOptions &lang) {
  std::vector<RawToken> tokens = lexRaw(text, lang);
  std::vector<Edit> edits;
  moveAttributesFirst(text, tokens, edits);
  fixAsmStatements(tokens, edits);
  joinLaunchChevrons(text, tokens, edits);
  if (edits.empty())
    return std::nullopt;
  // The edits never overlap; apply them from the back so offsets hold.
  std::sort(edits.begin(), edits.end(),
            [](const Edit &a, const Edit &b) { return a.begin > b.begin; });
  std::string out = text.str();
  for (const Edit &e : edits)
    out.replace(e.begin, e.end - e.begin, e.replacement);
  return out;
}

} // namespace rcplugin
