#include "source_database.h"

#include "ksink/db/sql_identifier.h"

namespace ksink::jdbc {

std::string TableRef::fqn() const {
  std::string out;
  if (!catalog.empty()) out += catalog + ".";
  if (!schema.empty()) out += schema + ".";
  return out + name;
}

std::string TableRef::quoted() const {
  return schema.empty() ? quoteIdentifier(name)
                        : quoteIdentifier(schema) + "." + quoteIdentifier(name);
}

const TableColumn* TableInfo::column(const std::string& name) const {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace ksink::jdbc
