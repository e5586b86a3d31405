#include "table_id.h"

namespace ksink::postgres {

TableId TableId::parse(std::string_view table, std::string_view table_name_format) {
  const auto placeholder = table_name_format.find("${topic}");
  const auto literal = table_name_format.substr(0, placeholder);
  const auto dot = literal.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= table.size())
    return {std::nullopt, std::string(table)};
  return {std::string(table.substr(0, dot)), std::string(table.substr(dot + 1))};
}

std::string TableId::quoted() const {
  return schema ? quoteIdentifier(*schema) + "." + quoteIdentifier(name) : quoteIdentifier(name);
}

std::string TableId::display() const {
  return schema ? *schema + "." + name : name;
}

}  // namespace ksink::postgres
