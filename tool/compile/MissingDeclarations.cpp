//===--- MissingDeclarations.cpp - names a missing header would declare ---===//

#include "MissingDeclarations.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/ExternalSemaSource.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/StringMap.h"

namespace xfer {
using namespace clang;

llvm::StringRef missingDeclarationsHeaderPath() {
  return "/xfer-tidy-builtin/xfer_tidy_missing_declarations.h";
}

llvm::StringRef missingDeclarationsHeaderText() {
  // Conversions and operators are templates so that the stand-in is an
  // exact match only where no real overload applies.
  return R"cpp(// Stand-in for names declared by headers that were not found.
#pragma clang system_header
#ifdef __cplusplus
struct __xfer_unknown {
  __xfer_unknown();
  template <class... A> explicit __xfer_unknown(A &&...);
  template <class T> operator T &() const;
  explicit operator bool() const;
  template <class... A> __xfer_unknown &operator()(A &&...) const;
  template <class A> __xfer_unknown &operator[](A &&) const;
  __xfer_unknown *operator->() const;
  __xfer_unknown &operator*() const;
  __xfer_unknown &operator++() const;
  __xfer_unknown &operator--() const;
  __xfer_unknown &operator++(int) const;
  __xfer_unknown &operator--(int) const;
  __xfer_unknown &operator-() const;
  __xfer_unknown &operator!() const;
  __xfer_unknown &operator~() const;
  template <class A> __xfer_unknown &operator=(A &&) const;
  // A range (`for (int b : tqdm::range(0, n))`): the loop and its body stay.
  __xfer_unknown &begin() const;
  __xfer_unknown &end() const;
};
// The other operand is taken as it is (a stream stays a stream, so output
// chains on), and is never the stand-in itself, so that no two overloads
// tie.
template <class T> struct __xfer_not_unknown { typedef int type; };
template <> struct __xfer_not_unknown<__xfer_unknown> {};
template <> struct __xfer_not_unknown<__xfer_unknown &> {};
template <> struct __xfer_not_unknown<const __xfer_unknown &> {};
template <> struct __xfer_not_unknown<const __xfer_unknown> {};
#define XFER_UNKNOWN_BINARY(OP, LEFT_RESULT)                                  \
  template <class B, class = typename __xfer_not_unknown<B>::type>           \
  __xfer_unknown &operator OP(const __xfer_unknown &, B &&);                 \
  template <class A, class = typename __xfer_not_unknown<A>::type>           \
  LEFT_RESULT operator OP(A &&, const __xfer_unknown &);                     \
  __xfer_unknown &operator OP(const __xfer_unknown &, const __xfer_unknown &);
XFER_UNKNOWN_BINARY(<<, A &&) XFER_UNKNOWN_BINARY(>>, A &&)
XFER_UNKNOWN_BINARY(+, __xfer_unknown &) XFER_UNKNOWN_BINARY(-, __xfer_unknown &)
XFER_UNKNOWN_BINARY(*, __xfer_unknown &) XFER_UNKNOWN_BINARY(/, __xfer_unknown &)
XFER_UNKNOWN_BINARY(%, __xfer_unknown &) XFER_UNKNOWN_BINARY(&, __xfer_unknown &)
XFER_UNKNOWN_BINARY(|, __xfer_unknown &) XFER_UNKNOWN_BINARY(^, __xfer_unknown &)
XFER_UNKNOWN_BINARY(<, bool) XFER_UNKNOWN_BINARY(>, bool)
XFER_UNKNOWN_BINARY(<=, bool) XFER_UNKNOWN_BINARY(>=, bool)
XFER_UNKNOWN_BINARY(==, bool) XFER_UNKNOWN_BINARY(!=, bool)
XFER_UNKNOWN_BINARY(+=, A &&) XFER_UNKNOWN_BINARY(-=, A &&)
XFER_UNKNOWN_BINARY(*=, A &&) XFER_UNKNOWN_BINARY(/=, A &&)
XFER_UNKNOWN_BINARY(|=, A &&) XFER_UNKNOWN_BINARY(&=, A &&)
#undef XFER_UNKNOWN_BINARY
#endif
)cpp";
}

namespace {

/// Entered in place of the first header that is not found: the standard
/// headers a third-party header usually brings along, so that the names
/// they declare are the real ones, not stand-ins that would clash with
/// them when a later header includes them.
constexpr llvm::StringLiteral StandardHeadersText = R"cpp(
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>
)cpp";

/// What a missing name is taken to be, from the token after it.
enum class Role { None, Namespace, Type, Variable };

bool isIdentifierChar(char C) { return llvm::isAlnum(C) || C == '_'; }

/// The role of a name whose spelling ends before \p Rest.
Role roleBefore(llvm::StringRef Rest) {
  Rest = Rest.ltrim(" \t\r\n");
  if (Rest.starts_with("::"))
    return Role::Namespace;
  if (Rest.empty())
    return Role::Variable;
  // A template is not declared: its arguments would not parse either way.
  if (Rest.front() == '<')
    return Role::None;
  // A name, a pointer or a reference after it declares something of it. A
  // call is of a variable (the stand-in is callable): as a type, a call
  // statement `T(&x);` would declare x.
  if (isIdentifierChar(Rest.front()) || Rest.front() == '*' ||
      Rest.front() == '&')
    return Role::Type;
  return Role::Variable;
}

/// State shared by the preprocessor's callbacks and Sema's source.
struct RecoveryState {
  /// The user files with an #include that was not found, and where the
  /// first such #include is: only names used after it in the same file are
  /// the missing header's (a header found later may declare the others).
  llvm::DenseMap<FileID, SourceLocation> FilesMissingIncludes;
  std::function<void(FileID)> OnFileMissingInclude;
};

class MissingIncludeWatcher : public PPCallbacks {
public:
  MissingIncludeWatcher(std::shared_ptr<RecoveryState> State, Preprocessor &PP)
      : State(std::move(State)), PP(PP), SM(PP.getSourceManager()) {}

  void InclusionDirective(SourceLocation HashLoc, const Token &, StringRef,
                          bool, CharSourceRange, OptionalFileEntryRef File,
                          StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    if (File || HashLoc.isInvalid() || HashLoc.isMacroID() ||
        SM.isInSystemHeader(HashLoc))
      return;
    FileID Includer = SM.getFileID(HashLoc);
    if (!EnteredStandardHeaders && PP.getLangOpts().CPlusPlus) {
      EnteredStandardHeaders = true;
      FileID Standard =
          SM.createFileID(llvm::MemoryBuffer::getMemBuffer(
                              StandardHeadersText, "<standard headers>"),
                          SrcMgr::C_System, 0, 0, HashLoc);
      PP.EnterSourceFile(Standard, nullptr, HashLoc);
    }
    if (!State->FilesMissingIncludes.try_emplace(Includer, HashLoc).second)
      return;
    if (State->OnFileMissingInclude)
      State->OnFileMissingInclude(Includer);
  }

private:
  std::shared_ptr<RecoveryState> State;
  Preprocessor &PP;
  SourceManager &SM;
  bool EnteredStandardHeaders = false;
};

class MissingDeclarationSource : public ExternalSemaSource {
public:
  explicit MissingDeclarationSource(std::shared_ptr<RecoveryState> State)
      : State(std::move(State)) {}

  void InitializeSema(Sema &S) override {
    Actions = &S;
    State->OnFileMissingInclude = [this](FileID File) {
      // Declaring a member may add a nested namespace to the list.
      for (size_t I = 0; I < Namespaces.size(); ++I) {
        std::string Path = Namespaces[I].first;
        declareMembersUsedIn(File, Path, Namespaces[I].second);
      }
    };
  }
  void ForgetSema() override {
    Actions = nullptr;
    State->OnFileMissingInclude = nullptr;
  }

  bool LookupUnqualified(LookupResult &R, Scope *) override {
    // No scope to declare in once the translation unit has ended.
    if (!Actions || !Actions->TUScope || State->FilesMissingIncludes.empty() ||
        R.isForRedeclaration())
      return false;
    Sema::LookupNameKind Kind = R.getLookupKind();
    if (Kind != Sema::LookupOrdinaryName &&
        Kind != Sema::LookupNestedNameSpecifierName)
      return false;
    IdentifierInfo *Name = R.getLookupName().getAsIdentifierInfo();
    SourceLocation Loc = R.getNameLoc();
    const SourceManager &SM = Actions->getSourceManager();
    // Names in templates may be found at instantiation (ADL); names in
    // macros and system headers are not the user's.
    if (!Name || Loc.isInvalid() || Loc.isMacroID() ||
        SM.isInSystemHeader(Loc) || Actions->CurContext->isDependentContext() ||
        !afterMissingInclude(Loc) || isReservedForKnownHeaders(Name->getName()))
      return false;
    Role Wanted = Kind == Sema::LookupNestedNameSpecifierName
                      ? Role::Namespace
                      : roleBefore(textAfterToken(Loc));
    NamedDecl *Declared =
        declare(Actions->getASTContext().getTranslationUnitDecl(), Name, Wanted,
                Loc, Name->getName());
    if (!Declared)
      return false;
    R.addDecl(Declared);
    R.resolveKind();
    return true;
  }

private:
  /// True if \p Loc follows an #include that was not found, in its file.
  bool afterMissingInclude(SourceLocation Loc) const {
    const SourceManager &SM = Actions->getSourceManager();
    auto It = State->FilesMissingIncludes.find(SM.getFileID(Loc));
    return It != State->FilesMissingIncludes.end() &&
           SM.isBeforeInTranslationUnit(It->second, Loc);
  }

  /// Names the C++ library, the C library or CUDA declare, which a header
  /// included later may still bring (a type the missing header used to pull
  /// in): declared here, they would clash with the real declaration. The
  /// old SDK's cutil (`cutilSafeCall`, `cutStartTimer`, `CUT_DEVICE_INIT`)
  /// is not CUDA's: its names are the missing header's.
  static bool isReservedForKnownHeaders(llvm::StringRef Name) {
    bool Cutil = (Name.starts_with("cut") && !Name.starts_with("cutensor")) ||
                 Name.starts_with("CUT_");
    return Name == "std" || Name.starts_with("_") || Name.ends_with("_t") ||
           (!Cutil && (Name.starts_with("cu") || Name.starts_with("CU")));
  }

  QualType standIn() {
    if (!StandIn.isNull())
      return StandIn;
    ASTContext &Ctx = Actions->getASTContext();
    for (NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(
             &Ctx.Idents.get("__xfer_unknown")))
      if (const auto *Class = dyn_cast<CXXRecordDecl>(D);
          Class && Class->hasDefinition())
        StandIn = Ctx.getRecordType(Class);
    return StandIn;
  }

  llvm::StringRef textAfterToken(SourceLocation Loc) {
    const SourceManager &SM = Actions->getSourceManager();
    SourceLocation End =
        Lexer::getLocForEndOfToken(Loc, 0, SM, Actions->getLangOpts());
    if (End.isInvalid())
      return {};
    bool Invalid = false;
    const char *Start = SM.getCharacterData(End, &Invalid);
    if (Invalid || !Start)
      return {};
    llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(End), &Invalid);
    if (Invalid)
      return {};
    return Buffer.substr(Start - Buffer.data(), 64);
  }

  NamedDecl *declare(DeclContext *Where, IdentifierInfo *Name, Role Wanted,
                     SourceLocation Loc, llvm::StringRef QualifiedName) {
    if (Wanted == Role::None || standIn().isNull())
      return nullptr;
    ASTContext &Ctx = Actions->getASTContext();
    NamedDecl *Declared = nullptr;
    switch (Wanted) {
    case Role::Namespace: {
      auto *Namespace = NamespaceDecl::Create(Ctx, Where, /*Inline=*/false, Loc,
                                              Loc, Name, nullptr,
                                              /*Nested=*/false);
      Declared = Namespace;
      break;
    }
    case Role::Type:
      Declared = TypedefDecl::Create(Ctx, Where, Loc, Loc, Name,
                                     Ctx.getTrivialTypeSourceInfo(standIn()));
      break;
    case Role::Variable:
      Declared =
          VarDecl::Create(Ctx, Where, Loc, Loc, Name, standIn(),
                          Ctx.getTrivialTypeSourceInfo(standIn()), SC_Extern);
      break;
    case Role::None:
      return nullptr;
    }
    Declared->setImplicit();
    if (Where->isTranslationUnit())
      Actions->PushOnScopeChains(Declared, Actions->TUScope);
    else
      Where->addDecl(Declared);
    if (auto *Namespace = dyn_cast<NamespaceDecl>(Declared)) {
      Namespaces.push_back({QualifiedName.str(), Namespace});
      for (const auto &[File, FirstMissing] : State->FilesMissingIncludes)
        declareMembersUsedIn(File, QualifiedName, Namespace);
    }
    return Declared;
  }

  /// Declares the members of \p Namespace that \p File uses as
  /// `Path::member`, each in the role its first use suggests.
  void declareMembersUsedIn(FileID File, llvm::StringRef Path,
                            NamespaceDecl *Namespace) {
    const SourceManager &SM = Actions->getSourceManager();
    bool Invalid = false;
    llvm::StringRef Text = SM.getBufferData(File, &Invalid);
    if (Invalid)
      return;
    std::string Prefix = (Path + "::").str();
    ASTContext &Ctx = Actions->getASTContext();
    for (size_t At = Text.find(Prefix); At != llvm::StringRef::npos;
         At = Text.find(Prefix, At + 1)) {
      if (At > 0 && (isIdentifierChar(Text[At - 1]) || Text[At - 1] == ':'))
        continue;
      size_t Begin = At + Prefix.size();
      size_t End = Begin;
      while (End < Text.size() && isIdentifierChar(Text[End]))
        ++End;
      if (End == Begin || llvm::isDigit(Text[Begin]))
        continue;
      llvm::StringRef Member = Text.slice(Begin, End);
      IdentifierInfo *Name = &Ctx.Idents.get(Member);
      if (!Namespace->lookup(Name).empty())
        continue;
      declare(Namespace, Name, roleBefore(Text.substr(End, 64)),
              SM.getLocForStartOfFile(File).getLocWithOffset(Begin),
              (Path + "::" + Member).str());
    }
  }

  std::shared_ptr<RecoveryState> State;
  Sema *Actions = nullptr;
  QualType StandIn;
  std::vector<std::pair<std::string, NamespaceDecl *>> Namespaces;
};

/// Hands the source to Sema when the parse starts.
class SourceInstaller : public SemaConsumer {
public:
  explicit SourceInstaller(std::shared_ptr<RecoveryState> State)
      : State(std::move(State)) {}
  void InitializeSema(Sema &S) override {
    auto *Source = new MissingDeclarationSource(State);
    Source->InitializeSema(S);
    S.addExternalSource(Source);
  }

private:
  std::shared_ptr<RecoveryState> State;
};

} // namespace

std::unique_ptr<SemaConsumer> installMissingDeclarations(CompilerInstance &CI) {
  auto State = std::make_shared<RecoveryState>();
  CI.getPreprocessor().addPPCallbacks(
      std::make_unique<MissingIncludeWatcher>(State, CI.getPreprocessor()));
  return std::make_unique<SourceInstaller>(std::move(State));
}

} // namespace xfer
