#include "silt/sql/binder_scope.h"

#include <algorithm>
#include <cctype>

#include "silt/base/check.h"
#include "silt/base/error_class.h"

namespace silt::sql {

bool NamesEqual(const std::string& left, const std::string& right) {
  if (left.size() != right.size()) return false;
  for (size_t i = 0; i < left.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(left[i])) != std::tolower(static_cast<unsigned char>(right[i]))) {
      return false;
    }
  }
  return true;
}

std::string QuoteName(const QualifiedName& name) {
  std::string text;
  for (size_t i = 0; i < name.size(); ++i) {
    if (i > 0) text += ".";
    text += "`" + name[i] + "`";
  }
  return text;
}

namespace {

// Whether `qualifier` (as written) is a suffix of the column's qualifier.
bool QualifierMatches(const std::vector<std::string>& column_qualifier,
                      const QualifiedName& name, size_t qualifier_parts) {
  if (qualifier_parts > column_qualifier.size()) return false;
  size_t start = column_qualifier.size() - qualifier_parts;
  for (size_t i = 0; i < qualifier_parts; ++i) {
    if (!NamesEqual(column_qualifier[start + i], name[i])) return false;
  }
  return true;
}

QualifiedName FullName(const LogicalColumn& column) {
  QualifiedName name;
  // Spark suggests names with the relation's last qualifier part.
  if (!column.qualifier.empty()) name.push_back(column.qualifier.back());
  name.push_back(column.name);
  return name;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitution = previous[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<ResolvedName> FindColumn(const std::vector<LogicalColumn>& columns,
                                       const QualifiedName& name, const SourcePosition& position) {
  if (name.empty()) return std::nullopt;
  size_t max_qualifier = std::min<size_t>(name.size() - 1, 3);
  for (size_t qualifier_parts = max_qualifier + 1; qualifier_parts-- > 0;) {
    const std::string& column_name = name[qualifier_parts];
    std::vector<int> matches;
    for (size_t i = 0; i < columns.size(); ++i) {
      const LogicalColumn& column = columns[i];
      if (!NamesEqual(column.name, column_name)) continue;
      if (qualifier_parts == 0 ? column.hidden && !column.file_metadata
                               : !QualifierMatches(column.qualifier, name, qualifier_parts)) {
        continue;
      }
      matches.push_back(static_cast<int>(i));
    }
    // A visible column named `_metadata` shadows the hidden one, as in Spark.
    if (matches.size() > 1) {
      matches.erase(std::remove_if(matches.begin(), matches.end(),
                                   [&](int i) { return columns[static_cast<size_t>(i)].file_metadata; }),
                    matches.end());
    }
    if (matches.size() > 1) {
      std::string references;
      for (size_t i = 0; i < matches.size(); ++i) {
        if (i > 0) references += ", ";
        references += QuoteName(FullName(columns[matches[i]]));
      }
      QualifiedName written(name.begin(), name.begin() + qualifier_parts + 1);
      throw MakeError(ErrorClass::AMBIGUOUS_REFERENCE,
                      {{"name", QuoteName(written)}, {"referenceNames", references}})
          .WithContext(FormatPosition(position));
    }
    if (matches.size() == 1) return ResolvedName{matches[0], qualifier_parts + 1};
  }
  return std::nullopt;
}

expr::ExpressionPtr ColumnReference(const std::vector<LogicalColumn>& columns,
                                    const ResolvedName& resolved, const QualifiedName& name,
                                    const SourcePosition& position, int index_offset) {
  const LogicalColumn& column = columns[resolved.column];
  expr::ExpressionPtr result = expr::Column(resolved.column + index_offset, column.type, column.nullable);
  for (size_t i = resolved.parts_used; i < name.size(); ++i) {
    result = GetStructField(result, name[i], position);
  }
  return result;
}

void ThrowUnresolvedColumn(const QualifiedName& name, const std::vector<LogicalColumn>& columns,
                           const SourcePosition& position) {
  std::vector<std::pair<size_t, std::string>> candidates;
  std::string wanted = name.back();
  for (const LogicalColumn& column : columns) {
    if (column.hidden) continue;
    candidates.emplace_back(EditDistance(wanted, column.name), QuoteName(FullName(column)));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string proposal;
  for (size_t i = 0; i < candidates.size() && i < 5; ++i) {
    if (i > 0) proposal += ", ";
    proposal += candidates[i].second;
  }
  throw MakeError(ErrorClass::UNRESOLVED_COLUMN, {{"objectName", QuoteName(name)}, {"proposal", proposal}})
      .WithContext(FormatPosition(position));
}

expr::ExpressionPtr RelationScope::ResolveColumn(const QualifiedName& name,
                                                 const SourcePosition& position) {
  std::optional<ResolvedName> resolved = FindColumn(columns_, name, position);
  if (!resolved) ThrowUnresolvedColumn(name, columns_, position);
  return ColumnReference(columns_, *resolved, name, position);
}

}  // namespace silt::sql
