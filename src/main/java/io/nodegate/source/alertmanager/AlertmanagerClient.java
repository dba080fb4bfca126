package io.nodegate.source.alertmanager;

import io.nodegate.CollectionException;
import io.nodegate.InputException;
import io.nodegate.model.alertmanager.AmAlert;
import io.nodegate.model.alertmanager.AmGroup;
import io.nodegate.model.alertmanager.AmMatcher;
import io.nodegate.model.alertmanager.AmSilence;
import io.nodegate.model.alertmanager.AmStatus;
import io.nodegate.source.http.WholeAnswer;
import io.nodegate.time.Durations;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Alertmanager replica, read and written through its API v2 (prometheus/alertmanager api/v2/openapi.yaml):
 * GET /silences, POST /silences, DELETE /silence/{id}, GET /alerts, GET /alerts/groups, GET /status. Replicas are
 * asked one by one: they gossip silences, but a partitioned or restarted replica keeps its own view, and each
 * Prometheus sends its alerts to every replica (alerts are not gossiped).
 *
 * <p>The core rule holds here too: an answer other than 200 with the documented JSON shape, a timeout or a refused
 * connection is a {@link CollectionException} naming the replica and the call, never an empty list. The timeout is
 * the deadline of each call's whole answer (connect, headers and body), not only of its headers.
 */
public final class AlertmanagerClient {

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;

    private AlertmanagerClient(URI base, HttpClient http, Duration timeout) {
        this.base = base;
        this.http = http;
        this.timeout = timeout;
    }

    /**
     * @param url the replica's base URL as the operator reaches it (http://alertmanager-0.monitoring:9093, or a
     *            path prefix set with --web.route-prefix); it is stored in the NodeHandover, so it may not carry
     *            credentials
     */
    public static AlertmanagerClient of(String url, Duration timeout) {
        return new AlertmanagerClient(checkUrl(url), HttpClient.newBuilder().connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER).build(), timeout);
    }

    /**
     * The URL made canonical (no trailing slash), or an input error naming what is wrong with it.
     *
     * @throws InputException not http(s), no host, or user information in it
     */
    public static URI checkUrl(String url) {
        URI uri;
        try {
            uri = URI.create(url == null ? "" : url.trim());
        } catch (IllegalArgumentException e) {
            throw new InputException("--alertmanager '" + url + "' is not a URL: " + e.getMessage());
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new InputException("--alertmanager '" + url + "' is not an http(s) URL with a host "
                    + "(e.g. http://alertmanager-0.monitoring:9093)");
        }
        if (uri.getRawUserInfo() != null) {
            throw new InputException("--alertmanager: the URL carries user information; it is recorded in the "
                    + "NodeHandover, so credentials may not be part of it (reach the replica through a port-forward "
                    + "or a proxy that authenticates)");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new InputException("--alertmanager '" + url + "': give the base URL without a query or fragment");
        }
        String s = uri.toString();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return URI.create(s);
    }

    /** The replica as recorded and printed. */
    public String url() {
        return base.toString();
    }

    public List<AmSilence> silences() {
        return get("/api/v2/silences", JSON.getTypeFactory().constructCollectionType(List.class, AmSilence.class));
    }

    /** Firing alerts (Alertmanager leaves out resolved ones), silenced, inhibited and unprocessed included. */
    public List<AmAlert> alerts() {
        return get("/api/v2/alerts", JSON.getTypeFactory().constructCollectionType(List.class, AmAlert.class));
    }

    public List<AmGroup> groups() {
        return get("/api/v2/alerts/groups", JSON.getTypeFactory().constructCollectionType(List.class, AmGroup.class));
    }

    public AmStatus status() {
        return get("/api/v2/status", JSON.getTypeFactory().constructType(AmStatus.class));
    }

    /** What nodegate posts: a new silence (id null) or an update of one (the same id, a later end). */
    public record PostableSilence(String id, List<AmMatcher> matchers, Instant startsAt, Instant endsAt,
                                  String createdBy, String comment) {
    }

    /** Creates or updates a silence and returns its id (a new id when Alertmanager could not update in place). */
    public String post(PostableSilence silence) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (silence.id() != null) {
            body.put("id", silence.id());
        }
        body.put("matchers", silence.matchers().stream().map(m -> Map.of("name", m.name(), "value", m.value(),
                "isRegex", m.isRegex(), "isEqual", m.equal())).toList());
        body.put("startsAt", silence.startsAt().toString());
        body.put("endsAt", silence.endsAt().toString());
        body.put("createdBy", silence.createdBy());
        body.put("comment", silence.comment());
        String what = "POST /api/v2/silences";
        HttpResponse<String> r = send(what, HttpRequest.newBuilder(uri("/api/v2/silences"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
        Map<?, ?> answer = parse(what, r, JSON.getTypeFactory().constructType(Map.class));
        Object id = answer.get("silenceID");
        if (!(id instanceof String s) || s.isBlank()) {
            throw new CollectionException(where(what) + " answered without a silenceID");
        }
        return s;
    }

    /** Expires a silence (DELETE /api/v2/silence/{id}); Alertmanager answers 200 for one already expired. */
    public void expire(String id) {
        String what = "DELETE /api/v2/silence/" + id;
        HttpResponse<String> r = send(what, HttpRequest.newBuilder(uri("/api/v2/silence/" + id)).DELETE());
        if (r.statusCode() != 200) {
            throw new CollectionException(where(what) + " answered HTTP " + r.statusCode() + firstLine(r.body()));
        }
    }

    private <T> T get(String path, JavaType type) {
        String what = "GET " + path;
        HttpResponse<String> r = send(what, HttpRequest.newBuilder(uri(path)).GET());
        return parse(what, r, type);
    }

    private <T> T parse(String what, HttpResponse<String> r, JavaType type) {
        if (r.statusCode() != 200) {
            throw new CollectionException(where(what) + " answered HTTP " + r.statusCode() + firstLine(r.body()));
        }
        try {
            T value = JSON.readValue(r.body(), type);
            if (value == null) {
                throw new CollectionException(where(what) + " answered null");
            }
            return value;
        } catch (JacksonException e) {
            throw new CollectionException(where(what) + ": unparsable answer (" + e.getOriginalMessage() + ")");
        }
    }

    private HttpResponse<String> send(String what, HttpRequest.Builder request) {
        try {
            // the timeout bounds the whole answer: a replica (or a proxy) that sends its headers and then trickles
            // the body is given up at the deadline, like one that never answers
            return WholeAnswer.send(http, request.header("Accept", "application/json").build(), timeout,
                    WholeAnswer.DEFAULT_MAX_BYTES);
        } catch (WholeAnswer.DeadlineExceeded e) {
            throw new CollectionException(where(what) + ": no complete answer within " + Durations.format(timeout)
                    + " (the whole answer, headers and body; --alertmanager-timeout)", e);
        } catch (IOException e) {
            throw new CollectionException(where(what) + " failed: " + (e.getMessage() == null
                    ? e.getClass().getSimpleName() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectionException(where(what) + " was interrupted", e);
        }
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    private String where(String what) {
        return "Alertmanager " + base + ": " + what;
    }

    private static String firstLine(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String line = body.strip().lines().findFirst().orElse("");
        return " (" + (line.length() > 200 ? line.substring(0, 200) + "…" : line) + ")";
    }
}
