package io.nodegate.source.kube;

import com.sun.net.httpserver.HttpServer;
import io.nodegate.CollectionException;
import io.nodegate.source.json.KubeJson;
import io.nodegate.source.json.MetadataOnly;
import io.nodegate.source.json.Plain;
import io.nodegate.testing.ApiTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ApiCalls#watch} of Secrets against a server that sends exactly the bytes kube-apiserver sends for a watch
 * with {@code Accept: application/json;as=Table;g=meta.k8s.io;v=v1} and {@code includeObject=Metadata}: one Table of
 * one row per event, the column definitions on the first event only, BOOKMARKs as Tables of the bookmark object,
 * ERROR Statuses unchanged. Each event becomes the {@code kind: Secret} object a LIST gives; a Table that cannot
 * give the type or the object fails the watch as a broken answer, never an untyped Secret.
 */
class SecretWatchTablesTest {

    @TempDir
    Path dir;
    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static final String COLUMNS = "'columnDefinitions':[{'name':'Name','type':'string','format':'name'},"
            + "{'name':'Type','type':'string','format':''},{'name':'Data','type':'string','format':''},"
            + "{'name':'Age','type':'string','format':''}],";

    /**
     * What every later event of the stream carries instead: kube-apiserver encodes the stream's Tables with
     * NoHeaders after the first, and metav1.Table's columnDefinitions has no omitempty.
     */
    private static final String NO_HEADERS = "'columnDefinitions':null,";

    /** One watch event whose object is a Table of the given rows ({@code columns} with or without definitions). */
    private static String tableEvent(String type, String columns, String... rows) {
        return "{'type':'" + type + "','object':{'kind':'Table','apiVersion':'meta.k8s.io/v1','metadata':{},"
                + columns + "'rows':[" + String.join(",", rows) + "]}}\n";
    }

    private static String row(String name, String secretType, String version) {
        return "{'cells':['" + name + "','" + secretType + "',1,'5d'],'object':{'kind':'PartialObjectMetadata',"
                + "'apiVersion':'meta.k8s.io/v1','metadata':{'name':'" + name + "','namespace':'kube-system',"
                + "'uid':'uid-" + name + "','resourceVersion':'" + version + "'}}}";
    }

    /** What kube-apiserver sends for a BOOKMARK under as=Table: the bookmark object (a version only) as a row. */
    private static String bookmarkRow(String version) {
        return "{'cells':['','',0,'<unknown>'],'object':{'kind':'PartialObjectMetadata','apiVersion':'meta.k8s.io/v1',"
                + "'metadata':{'resourceVersion':'" + version + "'}}}";
    }

    private ApiCalls serving(String stream) throws Exception {
        byte[] body = stream.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            requests.add(exchange.getRequestURI() + " Accept: " + exchange.getRequestHeaders().getFirst("Accept"));
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Path kubeconfig = ApiTestServer.writeKubeconfig(dir.resolve("kubeconfig"), "c",
                "http://127.0.0.1:" + server.getAddress().getPort());
        return new ApiCalls(KubeConnection.open(kubeconfig, null, Duration.ofSeconds(10)));
    }

    private List<KubeJson.WatchEvent> events = new ArrayList<>();

    private void watch(ApiCalls api) {
        api.watch(Kinds.KUBE_SYSTEM_SECRETS, "5", 1, KubeJson.MODEL, new ApiCalls.WatchListener() {
            @Override
            public void opened(Runnable abort) {
            }

            @Override
            public void event(KubeJson.WatchEvent event) {
                events.add(event);
            }
        });
    }

    @Test
    void eachTableEventIsTheSecretAListGivesAndLaterEventsUseTheFirstEventsColumns() throws Exception {
        ApiCalls api = serving(tableEvent("ADDED", COLUMNS, row("a.node-password.rke2",
                "rke2.cattle.io/node-password", "6"))
                + tableEvent("MODIFIED", NO_HEADERS, row("b.node-password.k3s", "", "7"))
                + tableEvent("BOOKMARK", NO_HEADERS, bookmarkRow("8"))
                // a server that leaves the field out is read the same way
                + tableEvent("DELETED", "", row("a.node-password.rke2", "rke2.cattle.io/node-password", "9")));
        watch(api);

        assertThat(requests).singleElement().satisfies(r -> assertThat(r)
                .startsWith("/api/v1/namespaces/kube-system/secrets?watch=true")
                .contains("includeObject=Metadata", "resourceVersion=5")
                .endsWith("Accept: " + MetadataOnly.ACCEPT));
        assertThat(events).extracting(KubeJson.WatchEvent::type).containsExactly("ADDED", "MODIFIED", "BOOKMARK",
                "DELETED");
        assertThat(events.get(0).object()).containsEntry("kind", "Secret").containsEntry("apiVersion", "v1")
                .containsEntry("type", "rke2.cattle.io/node-password");
        assertThat(Plain.map(events.get(0).object(), "metadata")).containsEntry("name", "a.node-password.rke2")
                .containsEntry("uid", "uid-a.node-password.rke2").containsEntry("resourceVersion", "6");
        // an empty Type cell is an untyped Secret (an older k3s/RKE2), as in a LIST: no type field
        assertThat(events.get(1).object()).containsEntry("kind", "Secret").doesNotContainKey("type");
        assertThat(Plain.map(events.get(2).object(), "metadata")).containsEntry("resourceVersion", "8")
                .doesNotContainKey("name");
        assertThat(events.get(3).object()).containsEntry("type", "rke2.cattle.io/node-password");
    }

    @Test
    void anErrorEventUnderTablesIsStillTheStatusAndGoneMeansListAgain() throws Exception {
        ApiCalls api = serving(tableEvent("ADDED", COLUMNS, row("a", "Opaque", "6"))
                + "{'type':'ERROR','object':{'kind':'Status','apiVersion':'v1','metadata':{},'status':'Failure',"
                + "'message':'too old resource version: 5 (12)','reason':'Expired','code':410}}\n");
        assertThatThrownBy(() -> watch(api)).isInstanceOf(ApiCalls.Gone.class)
                .hasMessageContaining("too old resource version");
        assertThat(events).singleElement().extracting(KubeJson.WatchEvent::type).isEqualTo("ADDED");
    }

    @Test
    void aServerWithoutTablesSendsWholeSecretsWhoseValuesAreDropped() throws Exception {
        ApiCalls api = serving("{'type':'ADDED','object':{'kind':'Secret','apiVersion':'v1','metadata':"
                + "{'name':'a.node-password.rke2','namespace':'kube-system','uid':'u1','resourceVersion':'6',"
                + "'annotations':{'kubectl.kubernetes.io/last-applied-configuration':'{\\'data\\':{\\'hash\\':"
                + "\\'c2VjcmV0\\'}}'}},'type':'rke2.cattle.io/node-password','data':{'hash':'c2VjcmV0'}}}\n");
        watch(api);
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.object()).containsEntry("kind", "Secret").containsEntry("type", "rke2.cattle.io/node-password")
                    .doesNotContainKey("data");
            assertThat(e.toString()).doesNotContain("c2VjcmV0");
        });
    }

    @Test
    void aTableThatCannotGiveTheTypeOrTheObjectIsABrokenAnswerNeverAnUntypedSecret() throws Exception {
        String noTypeColumn = "'columnDefinitions':[{'name':'Name'},{'name':'Data'}],";
        String first = tableEvent("ADDED", COLUMNS, row("ok", "Opaque", "5"));
        List<String> streams = List.of(
                first + tableEvent("MODIFIED", noTypeColumn, "{'cells':['a',1],'object':{'metadata':{'name':'a'}}}"),
                first + tableEvent("MODIFIED", "", "{'cells':['a','Opaque',1,'5d'],'object':null}"),
                first + tableEvent("MODIFIED", ""),
                first + tableEvent("MODIFIED", "", row("a", "Opaque", "6"), row("b", "Opaque", "7")),
                // the first Table of a stream must define the columns
                tableEvent("ADDED", "", row("a", "Opaque", "6")),
                tableEvent("ADDED", NO_HEADERS, row("a", "Opaque", "6")));
        List<String> expected = List.of("no Type column", "without its object's metadata", "0 rows", "2 rows",
                "without columnDefinitions", "without columnDefinitions");
        for (int i = 0; i < streams.size(); i++) {
            ApiCalls api = serving(streams.get(i));
            events = new ArrayList<>();
            String message = expected.get(i);
            assertThatThrownBy(() -> watch(api)).as(message).isInstanceOf(CollectionException.class)
                    .isNotInstanceOf(ApiCalls.Gone.class).hasMessageContaining("WATCH").hasMessageContaining(message);
            // the whole events before the broken one were handed over; none after it
            assertThat(events).as(message).hasSize(i < 4 ? 1 : 0);
            server.stop(0);
        }
    }
}
