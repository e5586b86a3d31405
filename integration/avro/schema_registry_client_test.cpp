// SchemaRegistryClient against a real registry (Apicurio Registry serving Confluent's API,
// integration/schema-registry): registration and ids as Confluent's registry gives them (one id
// per schema content, whatever the subject), the registry's refusals sorted by what to do next,
// subjects that need escaping, and the registry unreachable — the next URL of the list, the cache
// serving known ids, a retriable error for the rest, recovery when it is back.
#include "avro/schema_registry_client.h"

#include <gtest/gtest.h>

#include "test_kafka.h"
#include "test_schema_registry.h"

namespace ksink::it {
namespace {

using avro::RegistryError;
using avro::RegistrySettings;
using avro::SchemaRegistryClient;
using Kind = RegistryError::Kind;

std::string record(const std::string& name, const std::string& fields) {
  return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

SchemaRegistryClient client(std::vector<std::string> urls) {
  RegistrySettings settings;
  settings.urls = std::move(urls);
  settings.connect_timeout = settings.read_timeout = std::chrono::seconds(5);
  return SchemaRegistryClient(std::move(settings));
}

Kind kindOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const RegistryError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no RegistryError";
  return Kind::kInvalid;
}

TEST(SchemaRegistryClientTest, ASchemaHasOneIdWhateverTheSubjectAndReadsBackById) {
  auto registry = client({TestSchemaRegistry::url()});
  const auto subject = uniqueName("orders") + "-value";
  const auto schema =
      record("Order", R"({"name":"id","type":"long"},{"name":"sku","type":"string"})");
  const int32_t id = registry.registerSchema(subject, schema);
  EXPECT_GT(id, 0);
  EXPECT_EQ(registry.registerSchema(subject, schema), id);
  // Another client (no cache): the registry answers with the same id, also under another subject.
  auto fresh = client({TestSchemaRegistry::url()});
  EXPECT_EQ(fresh.registerSchema(subject, schema), id);
  EXPECT_EQ(fresh.registerSchema(uniqueName("other") + "-value", schema), id);
  EXPECT_EQ(*fresh.schemaById(id), schema);
  const auto found = fresh.lookup(subject, schema);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->version, 1);
  EXPECT_FALSE(fresh.lookup(subject, record("Order", R"({"name":"id","type":"int"})")).has_value());

  // A second version (compatible: a field with a default) is the subject's latest.
  const auto v2 = record("Order", R"({"name":"id","type":"long"},{"name":"sku","type":"string"},)"
                                  R"({"name":"qty","type":"int","default":1})");
  const int32_t id2 = fresh.registerSchema(subject, v2);
  EXPECT_NE(id2, id);
  const auto [latest_id, latest_schema] = fresh.latest(subject);
  EXPECT_EQ(latest_id, id2);
  EXPECT_EQ(latest_schema, v2);
}

TEST(SchemaRegistryClientTest, RefusalsSayWhatToDoNext) {
  auto registry = client({TestSchemaRegistry::url()});
  // An id nobody registered: the record that carries it is bad data.
  try {
    registry.schemaById(987654321);
    FAIL() << "an unknown id was found";
  } catch (const RegistryError& e) {
    EXPECT_EQ(e.kind(), Kind::kNotFound);
    EXPECT_EQ(e.httpStatus(), 404);
    EXPECT_EQ(e.errorCode(), 40403);
    EXPECT_FALSE(e.retriable());
  }
  // Not a schema at all.
  EXPECT_EQ(kindOf([&] { registry.registerSchema(uniqueName("bad") + "-value", "{not avro"); }),
            Kind::kInvalid);
  // A new field without a default breaks BACKWARD compatibility (the registry's setting here, as
  // Confluent's default): 409, with the registry's reason in the message.
  const auto subject = uniqueName("evolving") + "-value";
  registry.registerSchema(subject, record("E", R"({"name":"a","type":"int"})"));
  try {
    registry.registerSchema(
        subject, record("E", R"({"name":"a","type":"int"},{"name":"b","type":"string"})"));
    FAIL() << "an incompatible schema was registered";
  } catch (const RegistryError& e) {
    EXPECT_EQ(e.kind(), Kind::kIncompatible) << e.what();
    EXPECT_EQ(e.httpStatus(), 409);
    EXPECT_EQ(e.errorCode(), 409);
  }
  // An unknown subject's latest version.
  EXPECT_EQ(kindOf([&] { registry.latest(uniqueName("nobody") + "-value"); }), Kind::kNotFound);
}

TEST(SchemaRegistryClientTest, SubjectsAreEscapedInPaths) {
  auto registry = client({TestSchemaRegistry::url()});
  const auto subject = uniqueName("db.schema/Orders table") + "-value";
  const auto schema = record("Escaped", R"({"name":"x","type":"string"})");
  const int32_t id = registry.registerSchema(subject, schema);
  const auto found = registry.lookup(subject, schema);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(registry.latest(subject).first, id);
}

TEST(SchemaRegistryClientTest, AnOutageIsRetriableAndKnownIdsKeepBeingServed) {
  SchemaRegistryProcess own(freshDir("registry-outage"));
  const auto url = own.start();
  // The first URL refuses connections: the second answers.
  auto registry = client({"http://127.0.0.1:1/apis/ccompat/v7", url});
  const auto schema = record("Outage", R"({"name":"n","type":"long"})");
  const int32_t id = registry.registerSchema(uniqueName("outage") + "-value", schema);
  EXPECT_EQ(*registry.schemaById(id), schema);

  // A client whose cache holds one schema: the older one is let go.
  RegistrySettings small;
  small.urls = {url};
  small.cache_capacity = 1;
  SchemaRegistryClient one(small);
  const auto second = record("Second", R"({"name":"s","type":"string"})");
  const int32_t second_id = registry.registerSchema(uniqueName("second") + "-value", second);
  one.schemaById(id);
  one.schemaById(second_id);

  own.stop();
  EXPECT_EQ(*registry.schemaById(id), schema);  // from the cache
  EXPECT_EQ(*one.schemaById(second_id), second);
  EXPECT_EQ(kindOf([&] { one.schemaById(id); }), Kind::kUnavailable);
  try {
    registry.schemaById(id + 1000);
    FAIL() << "an id was read from a stopped registry";
  } catch (const RegistryError& e) {
    EXPECT_EQ(e.kind(), Kind::kUnavailable);
    EXPECT_TRUE(e.retriable());
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:1/"), std::string::npos) << e.what();
  }
  EXPECT_EQ(kindOf([&] {
              registry.registerSchema("x-value", record("Y", R"({"name":"y","type":"int"})"));
            }),
            Kind::kUnavailable);

  // Back (empty: it keeps schemas in memory): the same client registers and reads again.
  own.start();
  const auto other = record("Back", R"({"name":"b","type":"string"})");
  const int32_t again = registry.registerSchema(uniqueName("back") + "-value", other);
  auto fresh = client({url});
  EXPECT_EQ(*fresh.schemaById(again), other);
}

// A URL that reaches the server but not its registry API (the /apis/ccompat/v7 left out): every
// path is a 404 that is not the registry's "no such id" — a configuration error, never a bad
// record.
TEST(SchemaRegistryClientTest, AUrlWithoutTheApiIsAMisconfigurationNotABadRecord) {
  const auto url = TestSchemaRegistry::url();
  auto registry = client({url.substr(0, url.find("/apis/"))});
  EXPECT_EQ(kindOf([&] { registry.schemaById(1); }), Kind::kMisconfigured);
  EXPECT_EQ(
      kindOf([&] { registry.lookup("x-value", record("X", R"({"name":"x","type":"int"})")); }),
      Kind::kMisconfigured);
}

TEST(SchemaRegistryClientTest, AUrlItCannotUseIsRefusedAtOnce) {
  EXPECT_THROW(client({"127.0.0.1:8081"}), std::invalid_argument);
  EXPECT_THROW(client({"ftp://127.0.0.1:8081"}), std::invalid_argument);
  EXPECT_THROW(client({}), std::invalid_argument);
  EXPECT_THROW(client({"http://user:pw@127.0.0.1:8081"}), std::invalid_argument);
  EXPECT_THROW(client({"http://127.0.0.1:99999"}), std::invalid_argument);
  EXPECT_THROW(client({"http://:8081/apis"}), std::invalid_argument);
  RegistrySettings half;
  half.urls = {"https://127.0.0.1:8081"};
  half.client_cert = "/tmp/cert.pem";
  EXPECT_THROW(SchemaRegistryClient{half}, std::invalid_argument);
}

}  // namespace
}  // namespace ksink::it
