package io.nodegate.source.kube;

import io.nodegate.CollectionException;
import io.nodegate.source.json.KubeJson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * One LIST of at most 500 objects, read as a stream: the list's kind and its {@code metadata.continue} are checked
 * and every item is handed to a parser of the caller's, which reads only the fields it needs and skips the rest
 * token by token. The readers of objects that hold a secret (bootstrap token Secrets, Rancher's
 * ClusterRegistrationTokens) use it, so a value they skip is never turned into a string. A failed call, an HTTP
 * status other than 200, an unparsable answer, one that is not the expected list or an item that is not an object
 * throws {@link CollectionException}: never "none" or "fewer"; more than one page is refused too, never read as
 * "some".
 */
public final class StreamedList {

    /** Reads one item (parser on its START_OBJECT, left on its END_OBJECT); null leaves the item out. */
    @FunctionalInterface
    public interface ItemParser<T> {
        T parse(JsonParser p, String where) throws IOException;
    }

    /**
     * What the list looks like.
     *
     * @param listKind the list's {@code kind} ("SecretList")
     * @param plural   what more than 500 items are called in the error ("bootstrap token Secrets")
     */
    public record Shape(String listKind, String plural) {
    }

    private StreamedList() {
    }

    /**
     * GETs {@code path} and parses the answer.
     *
     * @param notFound words added to the error of a 404 (why the server may not serve the type), or ""
     */
    public static <T> List<T> read(KubeConnection connection, String what, String path, String notFound, Shape shape,
                                   ItemParser<T> item) {
        return connection.http().get(what, path, "application/json", answer -> {
            if (answer.status() != 200) {
                throw new CollectionException(what + " at " + connection.server() + " answered HTTP "
                        + answer.status() + (answer.status() == 404 ? notFound : ""));
            }
            try (InputStream body = answer.body(); JsonParser p = KubeJson.parser(body)) {
                return parse(p, what + " at " + connection.server(), shape, item);
            } catch (JacksonException e) {
                throw new CollectionException(what + " at " + connection.server() + ": unparsable answer ("
                        + e.getOriginalMessage() + ")");
            }
        });
    }

    /** The list (parser before its first token). */
    public static <T> List<T> parse(JsonParser p, String where, Shape shape, ItemParser<T> item) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new CollectionException(where + ": the answer is not a JSON object");
        }
        List<T> out = new ArrayList<>();
        boolean items = false;
        String kind = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("items".equals(field) && t == JsonToken.START_ARRAY) {
                items = true;
                JsonToken next;
                int index = 0;
                while ((next = p.nextToken()) != JsonToken.END_ARRAY) {
                    index++;
                    if (next != JsonToken.START_OBJECT) {
                        // a broken answer: the items after it are unknown, so what was read is not the list
                        throw new CollectionException(where + ": item " + index + " of the " + shape.listKind()
                                + " is not an object (" + what(next) + ")");
                    }
                    T one = item.parse(p, where);
                    if (one != null) {
                        out.add(one);
                    }
                }
            } else if ("kind".equals(field) && t == JsonToken.VALUE_STRING) {
                kind = p.getString();
            } else if ("metadata".equals(field) && t == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String m = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("continue".equals(m) && v == JsonToken.VALUE_STRING && !p.getString().isEmpty()) {
                        // more than one page: not a list this reading was made for; never "some"
                        throw new CollectionException(where + ": more than 500 " + shape.plural());
                    }
                    p.skipChildren();
                }
            } else {
                p.skipChildren();
            }
        }
        if (!items || (kind != null && !shape.listKind().equals(kind))) {
            throw new CollectionException(where + ": the answer is not a " + shape.listKind() + " with items");
        }
        return out;
    }

    /** What a token that is not an object is, in words; never its text (it may be a secret). */
    private static String what(JsonToken t) {
        return switch (t) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case START_ARRAY -> "an array";
            default -> String.valueOf(t);
        };
    }
}
