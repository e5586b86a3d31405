// Reads REST response bodies with Kafka Connect's own entity classes (connect-runtime's
// org.apache.kafka.connect.runtime.rest.entities) and Jackson, as a Java client of Connect's REST
// API reads them: a property the class does not know fails, and so does a property the class
// writes that the body lacks.
//
//   java -cp <connect-libs>/*:<classes> ConnectRestEntities <Entity> <file> [<Entity> <file>…]
//
// <Entity>: a class of that package (ServerInfo, ConnectorInfo, ConnectorStateInfo, ConfigInfos,
// ConnectorOffsets, ErrorMessage, …), "List<Class>" for a JSON array of them, "Map<Class>" for a
// JSON object of them. Prints one line per body ("ok <Entity> <file>"); exits 1 at the first
// body that fails, saying why.
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

public class ConnectRestEntities {
  private static final String PACKAGE = "org.apache.kafka.connect.runtime.rest.entities.";

  public static void main(String[] args) throws Exception {
    ObjectMapper mapper =
        new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    for (int i = 0; i + 1 < args.length; i += 2) {
      String entity = args[i];
      String body = Files.readString(Path.of(args[i + 1]));
      try {
        Object parsed = mapper.readValue(body, type(mapper, entity));
        // What Connect writes of it: every property the body must have.
        String missing = missing(mapper.valueToTree(parsed), mapper.readTree(body), "");
        if (!missing.isEmpty()) throw new IllegalStateException("missing " + missing);
      } catch (Exception e) {
        System.out.println("FAILED " + entity + " " + args[i + 1] + ": " + e.getMessage());
        System.exit(1);
      }
      System.out.println("ok " + entity + " " + args[i + 1]);
    }
  }

  private static JavaType type(ObjectMapper mapper, String entity) throws Exception {
    var types = mapper.getTypeFactory();
    if (entity.startsWith("List<"))
      return types.constructCollectionType(List.class, entityClass(entity.substring(5, entity.length() - 1)));
    if (entity.startsWith("Map<"))
      return types.constructMapType(
          Map.class, String.class, entityClass(entity.substring(4, entity.length() - 1)));
    return types.constructType(entityClass(entity));
  }

  private static Class<?> entityClass(String name) throws Exception {
    return Class.forName(PACKAGE + name);
  }

  // The fields of `written` (Connect's serialization) that `body` lacks, as paths; non-null ones
  // only (Connect leaves out what it has no value for, or writes null).
  private static String missing(JsonNode written, JsonNode body, String path) {
    StringBuilder out = new StringBuilder();
    if (written.isObject()) {
      for (Iterator<String> names = written.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        JsonNode value = written.get(name);
        if (value.isNull()) continue;
        if (!body.has(name)) out.append(' ').append(path).append('/').append(name);
        else out.append(missing(value, body.get(name), path + "/" + name));
      }
    } else if (written.isArray()) {
      for (int i = 0; i < written.size() && i < body.size(); ++i)
        out.append(missing(written.get(i), body.get(i), path + "/" + i));
    }
    return out.toString();
  }
}
