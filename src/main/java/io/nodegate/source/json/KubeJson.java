package io.nodegate.source.json;

import io.nodegate.model.KeptNodeMetadata;
import io.nodegate.model.TombstoneBook;
import io.nodegate.model.TombstoneShards;
import io.nodegate.model.NodeInventory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.json.JsonFactory;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Reads Kubernetes JSON (an API LIST page, a kubectl {@code List}, a single object, or a dump file of several root
 * values) with Jackson's streaming parser straight into plain Java values, one list item at a time, skipping while
 * parsing what nodegate never reads. No fabric8 model class and no databind tree is involved.
 *
 * <h2>The API (shared by the live read layer and the dump reader)</h2>
 * <pre>{@code
 * KubeJson json = KubeJson.MODEL;                          // or KubeJson.EVIDENCE for `collect`
 * KubeJson.ListEnvelope page = json.readList(body, "LIST nodes at https://10.0.0.1:6443", "Node", item -> ...);
 * page.continueToken();   // null when the server sent none (or ""): the last page
 * page.resourceVersion(); page.kind(); page.itemCount();
 * Map<String, Object> node = json.readObject(body, "GET Node n1 at https://...", "Node");
 * json.readDocuments(parser, "nodes.json", handler);     // dump files: every root value, lists streamed item by item
 * }</pre>
 * <ul>
 * <li>{@code body} is an {@link InputStream} (UTF-8 bytes, e.g. an HTTP response body) or a {@link Reader}; it is
 *     read to its end and closed (Jackson closes the source it parsed). {@code where} names the input in errors
 *     ("LIST nodes at URL", a file name).</li>
 * <li>The item kind ("Node") is what the caller knows the items to be (an API LIST page's items carry no
 *     {@code kind}); null when unknown. An item's own {@code kind} wins. It decides the Secret and ConfigMap rules
 *     below; the reader never adds a {@code kind} field to an item.</li>
 * <li>Items are handed to the consumer as they are parsed, in document order; the caller must treat the list as
 *     complete only when {@code readList} returns. Any failure throws {@link JsonReadException} (malformed or
 *     truncated JSON with line, column and byte offset; a root that is not an object; {@code items} missing or
 *     not an array; an item that is not an object; a read error of the stream underneath, e.g. a timeout, with
 *     {@link JsonReadException#ioFailure()} true). Items handed over before the failure must be discarded.</li>
 * </ul>
 *
 * <h2>Plain values</h2>
 * A JSON object is a {@link LinkedHashMap}{@code <String, Object>} in document order (a JSON null is kept as a key
 * with a null value), an array an {@link ArrayList}{@code <Object>}, a string a {@link String}, an integer a
 * {@link Long} (a {@link BigInteger} beyond the range of long), any other number a {@link Double}, true/false a
 * {@link Boolean}, and null is null. {@link Plain} reads fields of these values with errors that name the field.
 *
 * <h2>What is skipped (token by token, never materialised)</h2>
 * Always, for every object that is a list item, a root object, or an element of a root array:
 * <ul>
 * <li>a Secret's {@code data} and {@code stringData}, and its {@code kubectl.kubernetes.io/last-applied-configuration}
 *     annotation (which repeats the data): Secret values never reach the consumer.</li>
 * </ul>
 * In {@link #MODEL} mode, also what the model never reads:
 * <ul>
 * <li>{@code metadata.managedFields} of every object, but for a Node the entries that own {@code spec.unschedulable}
 *     (who cordoned it), each cut to its manager, operation and time;</li>
 * <li>{@code status.images} (Nodes: a kubelet reports up to 50 images with all their tags and digests);</li>
 * <li>a Node's labels and annotations that no check reads: only those {@link KeptNodeMetadata} lists are kept (a GPU
 *     node's node-feature-discovery and GPU-operator labels are most of its JSON);</li>
 * <li>a ConfigMap's {@code data} and {@code binaryData}, except the tombstones ledger's shards
 *     ({@value TombstoneBook#CONFIGMAP} and its siblings, {@link TombstoneShards}, see {@code Kinds.TOMBSTONES}) and
 *     the declared inventory (nodegate-inventory).</li>
 * </ul>
 * {@link #EVIDENCE} mode keeps everything else (managedFields, images, every ConfigMap's data): what `collect`
 * writes is what the server sent, minus Secret values.
 *
 * <p>When a rule's condition is not yet known as the field arrives (kubectl writes keys sorted, so a Secret's
 * {@code data} comes before its {@code kind}, and a ConfigMap's {@code data} before its {@code metadata.name}),
 * the field is read and then dropped as soon as the object ends, before the consumer sees it. The live API
 * writes {@code kind} (or the caller passes the item kind) and {@code metadata} first, so live reads skip without
 * materialising.
 */
public final class KubeJson {

    /** Keeps only what the model reads (live audits, dumps, the watch's cache). */
    public static final KubeJson MODEL = new KubeJson(true, true);
    /**
     * As {@link #MODEL}, but every Node label and annotation kept: what the model read before its Node metadata was
     * trimmed. Nothing runs on it; it exists to show that the trimming changes no output (tests, the benchmark).
     */
    public static final KubeJson MODEL_UNTRIMMED = new KubeJson(true, false);
    /** Keeps everything but Secret values (what `collect` writes as evidence). */
    public static final KubeJson EVIDENCE = new KubeJson(false, false);

    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    private static final JsonFactory FACTORY = new JsonFactory();

    private final boolean modelOnly;
    /** Node labels and annotations outside {@link KeptNodeMetadata} are dropped. */
    private final boolean trimNodeMetadata;

    private KubeJson(boolean modelOnly, boolean trimNodeMetadata) {
        this.modelOnly = modelOnly;
        this.trimNodeMetadata = trimNodeMetadata;
    }

    /** True in {@link #MODEL} mode. */
    public boolean modelOnly() {
        return modelOnly;
    }

    /**
     * The list's own fields. {@code continueToken} is null when absent or empty (the last page).
     *
     * @param kind            the list's kind ("NodeList", "List"), or null
     * @param apiVersion      the list's apiVersion, or null
     * @param resourceVersion metadata.resourceVersion, or null
     * @param continueToken   metadata.continue, null when absent or empty
     * @param itemCount       how many items were handed to the consumer
     */
    public record ListEnvelope(String kind, String apiVersion, String resourceVersion, String continueToken,
                               int itemCount) {
    }

    /** Receives the root values of a dump file, see {@link #readDocuments}. */
    public interface DocumentHandler {
        /**
         * One item of a root object's {@code items} array, as it is parsed. {@code listKind} is the kind of the
         * list when it came before {@code items} (an API answer), else null (kubectl writes it after).
         */
        void item(int document, Object item, String listKind);

        /** The end of a root object that had an {@code items} array: the list's own fields. */
        void listEnd(int document, ListEnvelope envelope);

        /** A root value that is not a list (a single object, an array, a scalar), whole. */
        void value(int document, Object value);
    }

    /** A parser over UTF-8 bytes (the encoding of API answers and of JSON files). */
    public static JsonParser parser(InputStream in) {
        return FACTORY.createParser(ObjectReadContext.empty(), in);
    }

    public static JsonParser parser(Reader in) {
        return FACTORY.createParser(ObjectReadContext.empty(), in);
    }

    /**
     * Reads one LIST answer (or kubectl List) whose root is an object with an {@code items} array, handing each
     * item to {@code onItem} as it is parsed.
     *
     * @param itemKind the kind of the items when the caller knows it (e.g. "Node" for LIST nodes), else null
     * @throws JsonReadException on malformed or truncated JSON, a root that is not an object, {@code items}
     *                           missing or not an array, an item that is not an object, or trailing data
     */
    public ListEnvelope readList(InputStream body, String where, String itemKind, Consumer<Map<String, Object>> onItem) {
        try (JsonParser p = parser(body)) {
            return readList(p, where, itemKind, onItem);
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /** As {@link #readList(InputStream, String, String, Consumer)} over a parser positioned before the root. */
    public ListEnvelope readList(JsonParser p, String where, String itemKind, Consumer<Map<String, Object>> onItem) {
        try {
            startRootObject(p, where, "list");
            ListEnvelope envelope = readListObject(p, where, itemKind, (item, listKind) -> {
                if (!(item instanceof Map<?, ?>)) {
                    throw new JsonReadException(where + ": a list item is not an object " + at(p), false);
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) item;
                onItem.accept(map);
            });
            if (envelope == null) {
                throw new JsonReadException(where + ": the answer has no items array: not a Kubernetes list", false);
            }
            requireEnd(p, where);
            return envelope;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * Reads one object (the answer to a named GET), skip rules applied.
     *
     * @param kind the object's kind when the caller knows it, else null
     * @throws JsonReadException on malformed or truncated JSON, a root that is not an object, or trailing data
     */
    public Map<String, Object> readObject(InputStream body, String where, String kind) {
        try (JsonParser p = parser(body)) {
            startRootObject(p, where, "object");
            Map<String, Object> out = readK8sObject(p, kind);
            requireEnd(p, where);
            return out;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /** The root value's first token; an answer with no JSON value at all is broken, never an empty result. */
    private static JsonToken firstToken(JsonParser p, String where) {
        JsonToken root = p.nextToken();
        if (root == null) {
            throw new JsonReadException(where + ": empty answer (no JSON value)", false);
        }
        return root;
    }

    /** Steps into the root, which must be an object: a Kubernetes {@code what} ("list" or "object"). */
    private static void startRootObject(JsonParser p, String where, String what) {
        JsonToken root = firstToken(p, where);
        if (root != JsonToken.START_OBJECT) {
            throw new JsonReadException(where + ": a JSON " + describe(root) + " " + at(p) + ", not a Kubernetes "
                    + what, false);
        }
    }

    /** Reads any JSON value whole (skip rules applied to Kubernetes objects in it, as for a root value). */
    public Object readValue(InputStream body, String where) {
        try (JsonParser p = parser(body)) {
            JsonToken root = firstToken(p, where);
            Object out = root == JsonToken.START_OBJECT ? readK8sObject(p, null) : rootValue(p);
            requireEnd(p, where);
            return out;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * One event of a watch stream: {@code type} ADDED, MODIFIED, DELETED, BOOKMARK or ERROR; {@code object} the
     * object (skip rules applied, as a list item of the watched kind), or for ERROR the Status the server sent.
     */
    public record WatchEvent(String type, Map<String, Object> object) {
    }

    /**
     * Reads a watch answer (kube-apiserver streams one JSON object per event, {@code {"type":..,"object":{..}}},
     * one after another) and hands each event to {@code onEvent} as soon as it is parsed, until the stream ends.
     * Each event is complete when handed over; a stream cut inside an event fails with {@link JsonReadException}
     * (the events before it were whole and stand).
     *
     * @param itemKind the kind of the watched objects ("Lease"; decides the Secret and ConfigMap rules)
     * @return how many events were read
     * @throws JsonReadException on malformed JSON, a root value that is not an object, an event without a type or
     *                           an object, or a read error of the stream underneath ({@link JsonReadException#ioFailure()})
     */
    public int readWatchEvents(InputStream body, String where, String itemKind, Consumer<WatchEvent> onEvent) {
        // kube-apiserver writes the type first: an ERROR's Status is read as a Status
        return readEvents(body, where, (p, type, event) -> readK8sObject(p, "ERROR".equals(type) ? "Status" : itemKind),
                onEvent);
    }

    /** Reads one event's object (parser on its START_OBJECT); {@code type} is null when it came after the object. */
    private interface EventObjectReader {
        Map<String, Object> read(JsonParser p, String type, int event);
    }

    /** The one loop over a watch stream's events: each must have a type and an object, read by {@code objects}. */
    private int readEvents(InputStream body, String where, EventObjectReader objects, Consumer<WatchEvent> onEvent) {
        int count = 0;
        try (JsonParser p = parser(body)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    throw new JsonReadException(where + ": a watch event is a JSON " + describe(t) + " " + at(p)
                            + ", not an object", false);
                }
                String type = null;
                Map<String, Object> object = null;
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String field = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("type".equals(field) && v == JsonToken.VALUE_STRING) {
                        type = p.getString();
                    } else if ("object".equals(field) && v == JsonToken.START_OBJECT) {
                        object = objects.read(p, type, count + 1);
                    } else {
                        p.skipChildren();
                    }
                }
                if (type == null || object == null) {
                    throw new JsonReadException(where + ": watch event " + (count + 1) + " has no "
                            + (type == null ? "type" : "object") + " " + at(p), false);
                }
                onEvent.accept(new WatchEvent(type, object));
                count++;
            }
            return count;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * Reads a metadata-only watch answer ({@link MetadataOnly#ACCEPT} with {@code includeObject=Metadata}): as
     * {@link #readWatchEvents}, but each event's object is a Table of one row, turned into an object of
     * {@code spec}'s kind as {@link #readMetadataList} turns a LIST's rows (metadata and the named columns), so a
     * watcher sees the same shape from its LIST and its WATCH.
     *
     * <p>What kube-apiserver sends (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go, serveWatchHandler
     * builds a watchEmbeddedEncoder; response.go, watchEmbeddedEncoder.doEncode and doTransformObject):
     * <ul>
     *   <li>every event's object goes through the same transform as a GET's answer: ADDED, MODIFIED, DELETED and
     *       BOOKMARK objects each become a Table (asTable) with one row whose object is the PartialObjectMetadata
     *       (includeObject=Metadata); a BOOKMARK's row is the bookmark object, a Secret with nothing but
     *       {@code metadata.resourceVersion}, so its name and type are empty;</li>
     *   <li>an ERROR event's object is a {@code metav1.Status}, which doTransformObject passes through unchanged:
     *       it is read as a Status here too;</li>
     *   <li>the column definitions come with the first event only: after encoding it, doEncode sets
     *       {@code tableOptions.NoHeaders}, so every later Table of the stream has rows without
     *       {@code columnDefinitions}. The columns of the stream's first Table are kept for the rest of it.</li>
     * </ul>
     * A server without Tables answers the whole objects (the Accept header's fallback): each is read as
     * {@link #readMetadataObject} reads one, values skipped.
     *
     * @throws JsonReadException as {@link #readWatchEvents}, and on a Table that is not one row, has no object in its
     *                           row, or lacks a column {@code spec} needs (a Secret's Type): a broken answer, never
     *                           an untyped object
     */
    public int readMetadataWatchEvents(InputStream body, String where, MetadataOnly spec,
                                       Consumer<WatchEvent> onEvent) {
        // the stream's columns: kube-apiserver sends them with its first Table only
        AtomicReference<List<String>> columns = new AtomicReference<>();
        return readEvents(body, where, (p, type, event) -> {
            if ("ERROR".equals(type)) {
                // kube-apiserver writes the type first; an ERROR's Status is not transformed
                return readK8sObject(p, "Status");
            }
            String at = where + ": watch event " + event;
            List<Map<String, Object>> rows = new ArrayList<>(1);
            MetadataAnswer answer = readMetadataAnswer(p, at, spec, columns.get(), rows::add);
            if (answer.envelope == null) {
                return answer.root; // the whole object: a server without Tables
            }
            if (rows.size() != 1) {
                throw new JsonReadException(at + " is a Table of " + rows.size() + " rows, not one " + spec.kind(),
                        false);
            }
            columns.set(answer.columns);
            return rows.get(0);
        }, onEvent);
    }

    /**
     * Reads every root value of a dump (JSON may hold several, one after another; a YAML parser yields one per
     * document). A root object with an {@code items} array is streamed: its items go to
     * {@link DocumentHandler#item} as they are parsed, then {@link DocumentHandler#listEnd}, except when its
     * {@code kind} came first and does not end in "List" (then it is an object like any other). Any other root
     * value goes whole to {@link DocumentHandler#value}: a root array's elements and a root object get the skip
     * rules of Kubernetes objects. Root nulls are handed over as null values.
     *
     * @return how many root values were read (0 for an input with none)
     */
    public int readDocuments(JsonParser p, String where, DocumentHandler handler) {
        int index = 0;
        try {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                final int document = index;
                if (t == JsonToken.START_OBJECT) {
                    Map<String, Object> whole = new LinkedHashMap<>();
                    ListEnvelope envelope = readRootObject(p, whole, (item, listKind) ->
                            handler.item(document, item, listKind));
                    if (envelope != null) {
                        handler.listEnd(document, envelope);
                    } else {
                        handler.value(document, whole);
                    }
                } else {
                    handler.value(document, rootValue(p));
                }
                index++;
            }
            return index;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * Reads the answer to a metadata-only LIST ({@link MetadataOnly#ACCEPT}): a Table, each row becoming an object of
     * {@code spec}'s kind made of the row's metadata and the columns {@code spec} names, handed to {@code onItem} as
     * it is read. A server that answered the plain list instead (the Accept header's fallback) is read as
     * {@link #readList} would, Secret values skipped.
     *
     * @throws JsonReadException on malformed or truncated JSON, an answer that is neither a Table nor a list, a row
     *                           without its object's metadata, or a Table without a column {@code spec} needs
     */
    public ListEnvelope readMetadataList(InputStream body, String where, MetadataOnly spec,
                                         Consumer<Map<String, Object>> onItem) {
        try (JsonParser p = parser(body)) {
            startRootObject(p, where, "list");
            MetadataAnswer answer = readMetadataAnswer(p, where, spec, null, onItem);
            if (answer.envelope == null) {
                throw new JsonReadException(where + ": the answer has neither rows nor items: not a Kubernetes Table "
                        + "or list", false);
            }
            requireEnd(p, where);
            return answer.envelope;
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * Reads the answer to a metadata-only GET of one object: a Table of one row (the object, as
     * {@link #readMetadataList} makes it), or, from a server that does not serve Tables, the object itself with
     * everything but its metadata and top-level text fields (a Secret's type) skipped.
     */
    public Map<String, Object> readMetadataObject(InputStream body, String where, MetadataOnly spec) {
        try (JsonParser p = parser(body)) {
            startRootObject(p, where, "object");
            List<Map<String, Object>> rows = new ArrayList<>();
            MetadataAnswer answer = readMetadataAnswer(p, where, spec, null, rows::add);
            requireEnd(p, where);
            if (answer.envelope == null) {
                return answer.root;
            }
            if (rows.size() != 1) {
                throw new JsonReadException(where + ": a Table of " + rows.size() + " rows answered a GET of one "
                        + spec.kind(), false);
            }
            return rows.get(0);
        } catch (JsonReadException e) {
            throw e;
        } catch (JacksonException e) {
            throw JsonReadException.of(where, e);
        }
    }

    /**
     * A metadata-only answer: a Table or list (envelope set), or else one object (root); {@code columns} the Table's
     * column names as this answer used them (its own, or the ones given), null for a list or an object.
     */
    private record MetadataAnswer(ListEnvelope envelope, Map<String, Object> root, List<String> columns) {
    }

    /**
     * The root object of a metadata-only answer (parser inside it).
     *
     * @param announcedColumns the columns an earlier Table of the same watch stream defined, or null: kube-apiserver
     *                         sends a watch's column definitions with its first event only (later ones say
     *                         {@code "columnDefinitions": null}), so a later event's rows are read with them (a
     *                         Table's own columnDefinitions, when it has any, always win)
     */
    private MetadataAnswer readMetadataAnswer(JsonParser p, String where, MetadataOnly spec,
                                              List<String> announcedColumns, Consumer<Map<String, Object>> onItem) {
        Map<String, Object> fields = new LinkedHashMap<>();
        List<String> columns = null;
        List<Map<String, Object>> rowsBeforeColumns = new ArrayList<>();
        int count = -1;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "columnDefinitions" -> {
                    Object defined = readScalarOrContainer(p, t);
                    if (defined == null) {
                        // kube-apiserver's Table has no omitempty on columnDefinitions: a watch event sent without
                        // headers (every event after the first) carries "columnDefinitions": null, which defines
                        // nothing; its rows are read with the columns the stream announced
                        break;
                    }
                    columns = new ArrayList<>();
                    if (defined instanceof List<?> defs) {
                        for (Object def : defs) {
                            columns.add(def instanceof Map<?, ?> d && d.get("name") instanceof String n ? n : null);
                        }
                    }
                    for (Map<String, Object> row : rowsBeforeColumns) {
                        onItem.accept(fromRow(row, columns, where, spec));
                    }
                    rowsBeforeColumns.clear();
                }
                case "rows" -> {
                    if (t != JsonToken.START_ARRAY) {
                        throw new JsonReadException(where + ": rows is a JSON " + describe(t) + " " + at(p)
                                + ", not an array", false);
                    }
                    count = Math.max(count, 0);
                    JsonToken e;
                    while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                        if (e != JsonToken.START_OBJECT) {
                            throw new JsonReadException(where + ": a Table row is not an object " + at(p), false);
                        }
                        Map<String, Object> row = readRow(p, spec);
                        if (columns == null) {
                            rowsBeforeColumns.add(row);
                        } else {
                            onItem.accept(fromRow(row, columns, where, spec));
                        }
                        count++;
                    }
                }
                case "items" -> {
                    // the plain list: the server does not serve Tables; the Secret rules skip the values
                    if (t != JsonToken.START_ARRAY) {
                        throw new JsonReadException(where + ": items is a JSON " + describe(t) + " " + at(p)
                                + ", not an array", false);
                    }
                    count = Math.max(count, 0) + streamItems(p, spec.kind(), (item, listKind) -> {
                        if (!(item instanceof Map<?, ?>)) {
                            throw new JsonReadException(where + ": a list item is not an object " + at(p), false);
                        }
                        @SuppressWarnings("unchecked")
                        Map<String, Object> map = (Map<String, Object>) item;
                        onItem.accept(map);
                    });
                }
                case "metadata" -> {
                    if (t == JsonToken.START_OBJECT) {
                        ObjectState state = new ObjectState(spec.kind());
                        fields.put(field, readMetadata(p, state));
                    } else {
                        fields.put(field, readScalarOrContainer(p, t));
                    }
                }
                default -> {
                    // kind, apiVersion, a Secret's type; the rest (a fallback object's data) is skipped unread
                    if (t == JsonToken.VALUE_STRING) {
                        fields.put(field, p.getString());
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
        if (!rowsBeforeColumns.isEmpty()) {
            if (announcedColumns == null) {
                throw new JsonReadException(where + ": a Table without columnDefinitions: the " + spec.kind()
                        + "s' columns cannot be read", false);
            }
            columns = announcedColumns;
            for (Map<String, Object> row : rowsBeforeColumns) {
                onItem.accept(fromRow(row, columns, where, spec));
            }
        }
        if (count < 0) {
            Map<String, Object> meta = fields.get("metadata") instanceof Map<?, ?> ? Plain.map(fields, "metadata") : null;
            if (meta != null && modelOnly) {
                meta.remove("managedFields");
            }
            return new MetadataAnswer(null, fields, null);
        }
        return new MetadataAnswer(envelope(fields, count), null, columns != null ? columns : announcedColumns);
    }

    /** One Table row (parser on its START_OBJECT): the cells, and the object's metadata with the skip rules. */
    private Map<String, Object> readRow(JsonParser p, MetadataOnly spec) {
        Map<String, Object> row = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("object".equals(field) && t == JsonToken.START_OBJECT) {
                // a PartialObjectMetadata: read with the rules of the kind it stands for (a Secret's
                // last-applied-configuration annotation repeats its values: never kept)
                Map<String, Object> object = new LinkedHashMap<>();
                ObjectState state = new ObjectState(spec.kind());
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String f = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("metadata".equals(f) && v == JsonToken.START_OBJECT) {
                        object.put(f, readMetadata(p, state));
                    } else if (v == JsonToken.VALUE_STRING) {
                        object.put(f, p.getString());
                    } else {
                        p.skipChildren();
                    }
                }
                row.put(field, object);
            } else if ("cells".equals(field)) {
                row.put(field, readScalarOrContainer(p, t));
            } else {
                p.skipChildren();
            }
        }
        return row;
    }

    /** A Table row as an object of {@code spec}'s kind: apiVersion, kind, metadata and the named columns' cells. */
    private static Map<String, Object> fromRow(Map<String, Object> row, List<String> columns, String where,
                                               MetadataOnly spec) {
        if (!(row.get("object") instanceof Map<?, ?> object) || !(object.get("metadata") instanceof Map<?, ?> meta)) {
            throw new JsonReadException(where + ": a Table row without its object's metadata (the server ignored "
                    + "includeObject=Metadata?)", false);
        }
        List<?> cells = row.get("cells") instanceof List<?> c ? c : null;
        if (cells == null || cells.size() != columns.size()) {
            throw new JsonReadException(where + ": a Table row has " + (cells == null ? "no" : cells.size())
                    + " cells for " + columns.size() + " columns", false);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("apiVersion", spec.apiVersion());
        out.put("kind", spec.kind());
        out.put("metadata", meta);
        for (Map.Entry<String, String> column : spec.columnFields().entrySet()) {
            int at = columns.indexOf(column.getKey());
            if (at < 0) {
                throw new JsonReadException(where + ": the Table has no " + column.getKey() + " column " + columns
                        + ": the " + spec.kind() + "s' " + column.getValue() + " cannot be read", false);
            }
            if (cells.get(at) instanceof String value && !value.isEmpty()) {
                out.put(column.getValue(), value);
            }
        }
        return out;
    }

    // -------------------------------------------------------------------------------------------------------------

    private interface ItemSink {
        void item(Object item, String listKind);
    }

    /**
     * A root object of a dump: streamed as a list when it has an items array (unless its kind, seen first, says it
     * is not a list); otherwise read whole into {@code whole} as a Kubernetes object. Returns the envelope for a
     * list, null for an object.
     */
    private ListEnvelope readRootObject(JsonParser p, Map<String, Object> whole, ItemSink sink) {
        // read fields until we know which it is: the first "items" array decides, unless kind came first
        ObjectState state = new ObjectState(null);
        int items = -1;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("items".equals(field) && t == JsonToken.START_ARRAY
                    && (state.kind == null || state.kind.endsWith("List"))) {
                items = streamItems(p, itemKindOf(state.kind), sink);
                continue;
            }
            readField(p, t, field, whole, state);
        }
        if (items < 0) {
            sanitize(whole, state);
            return null;
        }
        return envelope(whole, items);
    }

    /** A LIST answer's root object (parser on START_OBJECT): items streamed; null when there is no items array. */
    private ListEnvelope readListObject(JsonParser p, String where, String itemKind, ItemSink sink) {
        Map<String, Object> fields = new LinkedHashMap<>();
        int items = -1;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("items".equals(field)) {
                if (t != JsonToken.START_ARRAY) {
                    throw new JsonReadException(where + ": items is a JSON " + describe(t) + " " + at(p)
                            + ", not an array", false);
                }
                String kind = itemKind != null ? itemKind : itemKindOf(asString(fields.get("kind")));
                items = streamItems(p, kind, sink);
            } else if ("metadata".equals(field) && t == JsonToken.START_OBJECT) {
                fields.put(field, readMap(p));
            } else {
                // a list's other fields are small (kind, apiVersion); anything unexpected is skipped
                if (t == JsonToken.VALUE_STRING) {
                    fields.put(field, p.getString());
                } else {
                    p.skipChildren();
                }
            }
        }
        return items < 0 ? null : envelope(fields, items);
    }

    private static ListEnvelope envelope(Map<String, Object> fields, int items) {
        Object meta = fields.get("metadata");
        String rv = null;
        String cont = null;
        if (meta instanceof Map<?, ?> m) {
            rv = asString(m.get("resourceVersion"));
            cont = asString(m.get("continue"));
            if (cont != null && cont.isEmpty()) {
                cont = null;
            }
        }
        return new ListEnvelope(asString(fields.get("kind")), asString(fields.get("apiVersion")), rv, cont, items);
    }

    /** Parser on START_ARRAY of items: each element read and handed over; returns the count. */
    private int streamItems(JsonParser p, String itemKind, ItemSink sink) {
        int count = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == null) {
                throw new JsonReadException("end of input inside items", false);
            }
            Object item = t == JsonToken.START_OBJECT ? readK8sObject(p, itemKind) : readScalarOrContainer(p, t);
            sink.item(item, itemKind);
            count++;
        }
        return count;
    }

    /** "NodeList" → "Node"; "List" or null → null. */
    static String itemKindOf(String listKind) {
        if (listKind == null || !listKind.endsWith("List") || listKind.equals("List")) {
            return null;
        }
        return listKind.substring(0, listKind.length() - "List".length());
    }

    /** A root value other than an object: arrays get each element read as a Kubernetes object. */
    private Object rootValue(JsonParser p) {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_ARRAY) {
            List<Object> out = new ArrayList<>();
            JsonToken e;
            while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                out.add(e == JsonToken.START_OBJECT ? readK8sObject(p, null) : readScalarOrContainer(p, e));
            }
            return out;
        }
        if (t == JsonToken.START_OBJECT) {
            return readK8sObject(p, null);
        }
        return readScalarOrContainer(p, t);
    }

    /** What is known of the object being read, for the skip rules. */
    private static final class ObjectState {
        String kind;
        String name;

        ObjectState(String kind) {
            this.kind = kind;
        }

        boolean isSecret() {
            return "Secret".equals(kind);
        }

        boolean isConfigMap() {
            return "ConfigMap".equals(kind);
        }

        boolean isNode() {
            return "Node".equals(kind);
        }
    }

    /** A Kubernetes object (parser on START_OBJECT), skip rules applied. */
    Map<String, Object> readK8sObject(JsonParser p, String defaultKind) {
        Map<String, Object> out = new LinkedHashMap<>();
        ObjectState state = new ObjectState(defaultKind);
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            readField(p, p.nextToken(), field, out, state);
        }
        sanitize(out, state);
        return out;
    }

    /** One field of a Kubernetes object (parser on the value's first token). */
    private void readField(JsonParser p, JsonToken t, String field, Map<String, Object> out, ObjectState state) {
        switch (field) {
            case "kind" -> {
                Object v = readScalarOrContainer(p, t);
                if (v instanceof String s) {
                    state.kind = s;
                }
                out.put(field, v);
            }
            case "metadata" -> {
                if (t == JsonToken.START_OBJECT) {
                    Map<String, Object> meta = readMetadata(p, state);
                    if (meta.get("name") instanceof String n) {
                        state.name = n;
                    }
                    out.put(field, meta);
                } else {
                    out.put(field, readScalarOrContainer(p, t));
                }
            }
            case "status" -> {
                if (modelOnly && t == JsonToken.START_OBJECT) {
                    out.put(field, readMapWithout(p, "images"));
                } else {
                    out.put(field, readScalarOrContainer(p, t));
                }
            }
            case "data", "stringData", "binaryData" -> {
                if (skipData(state)) {
                    p.skipChildren();
                } else {
                    out.put(field, readScalarOrContainer(p, t));
                }
            }
            default -> out.put(field, readScalarOrContainer(p, t));
        }
    }

    /** The ConfigMaps whose data the model reads: the tombstones ledger's shards and the declared inventory. */
    private static boolean keepsData(String configMapName) {
        return TombstoneShards.isShard(configMapName) || NodeInventory.isInventory(configMapName);
    }

    /** Whether a data field can be skipped now, with what is known so far. */
    private boolean skipData(ObjectState state) {
        if (state.isSecret()) {
            return true;
        }
        return modelOnly && state.isConfigMap() && state.name != null && !keepsData(state.name);
    }

    /** At the end of an object, the rules that could not be applied while its fields arrived. */
    private void sanitize(Map<String, Object> out, ObjectState state) {
        if (state.isSecret()) {
            out.remove("data");
            out.remove("stringData");
            out.remove("binaryData");
            if (out.get("metadata") instanceof Map<?, ?> meta && meta.get("annotations") instanceof Map<?, ?> ann) {
                ann.remove(LAST_APPLIED);
            }
        } else if (modelOnly && state.isConfigMap() && !keepsData(state.name)) {
            out.remove("data");
            out.remove("binaryData");
        }
        if (modelOnly && !state.isNode() && out.get("metadata") instanceof Map<?, ?> meta) {
            // read while the kind was not known yet: only a Node keeps its cordon's managedFields entry
            meta.remove("managedFields");
        }
        if (trimNodeMetadata && state.isNode() && out.get("metadata") instanceof Map<?, ?> meta) {
            // the kind came after the metadata (a file with sorted keys): trimmed now, before anyone sees it
            if (meta.get("labels") instanceof Map<?, ?> labels) {
                labels.keySet().removeIf(k -> !(k instanceof String key && KeptNodeMetadata.keepsLabel(key)));
            }
            if (meta.get("annotations") instanceof Map<?, ?> annotations) {
                annotations.keySet().removeIf(k -> !(k instanceof String key && KeptNodeMetadata.keepsAnnotation(key)));
            }
        }
    }

    /**
     * metadata (parser on START_OBJECT): managedFields skipped in model mode (but a Node's cordon entries); a
     * Secret's last-applied skipped; a Node's labels and annotations outside {@link KeptNodeMetadata} skipped in
     * model mode.
     */
    private Map<String, Object> readMetadata(JsonParser p, ObjectState state) {
        Map<String, Object> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (modelOnly && "managedFields".equals(field)) {
                // a Node keeps only the entries that own spec.unschedulable (who cordoned it), by KeptNodeMetadata's
                // rule; an object whose kind is not known yet is read the same way and trimmed at its end (sanitize)
                if (t == JsonToken.START_ARRAY && (state.kind == null || state.isNode())) {
                    List<Object> owners = readCordonOwners(p);
                    if (!owners.isEmpty()) {
                        out.put(field, owners);
                    }
                } else {
                    p.skipChildren();
                }
            } else if ("annotations".equals(field) && t == JsonToken.START_OBJECT && state.isSecret()) {
                out.put(field, readMapWithout(p, LAST_APPLIED));
            } else if (trimNodeMetadata && state.isNode() && t == JsonToken.START_OBJECT && "labels".equals(field)) {
                out.put(field, readMapKeeping(p, KeptNodeMetadata::keepsLabel));
            } else if (trimNodeMetadata && state.isNode() && t == JsonToken.START_OBJECT
                    && "annotations".equals(field)) {
                out.put(field, readMapKeeping(p, KeptNodeMetadata::keepsAnnotation));
            } else {
                out.put(field, readScalarOrContainer(p, t));
            }
        }
        return out;
    }

    /**
     * A managedFields array (parser on START_ARRAY): only the entries whose fieldsV1 holds {@code f:spec} →
     * {@code f:unschedulable}, each cut to {@code manager}, {@code operation}, {@code time} and that one path, in the
     * shape the API server writes them; everything else skipped token by token.
     */
    private static List<Object> readCordonOwners(JsonParser p) {
        List<Object> out = new ArrayList<>(1);
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                continue;
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            boolean owns = false;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "manager", "operation", "time" -> entry.put(field, readScalarOrContainer(p, v));
                    case "fieldsV1" -> owns = v == JsonToken.START_OBJECT && ownsUnschedulable(p);
                    default -> p.skipChildren();
                }
            }
            if (owns) {
                entry.put("fieldsV1", Map.of(KeptNodeMetadata.MANAGED_SPEC,
                        Map.of(KeptNodeMetadata.MANAGED_UNSCHEDULABLE, Map.of())));
                out.add(entry);
            }
        }
        return out;
    }

    /** A fieldsV1 object (parser on START_OBJECT), read to its end: whether it holds f:spec → f:unschedulable. */
    private static boolean ownsUnschedulable(JsonParser p) {
        boolean owns = false;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (KeptNodeMetadata.MANAGED_SPEC.equals(field) && v == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    if (KeptNodeMetadata.MANAGED_UNSCHEDULABLE.equals(p.currentName())) {
                        owns = true;
                    }
                    p.nextToken();
                    p.skipChildren();
                }
            } else {
                p.skipChildren();
            }
        }
        return owns;
    }

    /** An object (parser on START_OBJECT) without one field, skipped token by token. */
    private static Map<String, Object> readMapWithout(JsonParser p, String skipped) {
        Map<String, Object> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (skipped.equals(field)) {
                p.skipChildren();
            } else {
                out.put(field, readScalarOrContainer(p, t));
            }
        }
        return out;
    }

    /** An object (parser on START_OBJECT) with only the fields {@code kept} names; the rest skipped token by token. */
    private static Map<String, Object> readMapKeeping(JsonParser p, java.util.function.Predicate<String> kept) {
        Map<String, Object> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if (kept.test(field)) {
                out.put(field, readScalarOrContainer(p, t));
            } else {
                p.skipChildren();
            }
        }
        return out;
    }

    private static Map<String, Object> readMap(JsonParser p) {
        Map<String, Object> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = p.currentName();
            out.put(field, readScalarOrContainer(p, p.nextToken()));
        }
        return out;
    }

    /** Any value, whole (parser on its first token). */
    static Object readScalarOrContainer(JsonParser p, JsonToken t) {
        if (t == null) {
            throw new JsonReadException("unexpected end of input", false);
        }
        return switch (t) {
            case START_OBJECT -> readMap(p);
            case START_ARRAY -> {
                List<Object> out = new ArrayList<>();
                JsonToken e;
                while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                    out.add(readScalarOrContainer(p, e));
                }
                yield out;
            }
            case VALUE_STRING -> p.getString();
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case BIG_INTEGER -> p.getBigIntegerValue();
                default -> p.getLongValue();
            };
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            case VALUE_EMBEDDED_OBJECT -> {
                Object v = p.getEmbeddedObject();
                yield v == null ? null : v.toString();
            }
            default -> throw new JsonReadException("unexpected " + t + " " + at(p), false);
        };
    }

    private static void requireEnd(JsonParser p, String where) {
        JsonToken extra = p.nextToken();
        if (extra != null) {
            throw new JsonReadException(where + ": unexpected data after the end of the answer " + at(p), false);
        }
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "array";
            case START_OBJECT -> "object";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> t.toString();
        };
    }

    private static String asString(Object o) {
        return o instanceof String s ? s : null;
    }

    /** "at line L, column C (byte B)" of the parser's current token. */
    static String at(JsonParser p) {
        return JsonReadException.position(p.currentTokenLocation());
    }

    static String position(TokenStreamLocation loc) {
        return JsonReadException.position(loc);
    }

    static boolean isIo(JacksonException e) {
        return e instanceof JacksonIOException;
    }
}
