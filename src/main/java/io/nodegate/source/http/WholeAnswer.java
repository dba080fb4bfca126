package io.nodegate.source.http;

import io.nodegate.time.Durations;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One request over {@link HttpClient} whose <b>whole answer</b> (connect, status line, headers and every byte of
 * the body) must arrive within a deadline, and whose body may not exceed a size cap.
 *
 * <p>Why this exists: {@link HttpRequest.Builder#timeout} bounds only the wait for the status line and headers. A
 * server, or anything between, that sends its headers at once and then one byte a second keeps
 * {@code HttpClient.send} waiting for as long as it keeps trickling. Here a timer cancels the exchange at the
 * deadline (the JDK's client then closes the connection) and the call fails with {@link DeadlineExceeded}.
 *
 * <p>The answer is read as UTF-8 text: the remote APIs read this way (Alertmanager's API v2, etcd's JSON gateway)
 * answer JSON.
 */
public final class WholeAnswer {

    /** The cap used when a caller has no better figure: far above any answer these APIs give a healthy cluster. */
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

    private static final ScheduledExecutorService TIMER = timer();

    private WholeAnswer() {
    }

    /** The whole answer did not arrive within its deadline. */
    public static final class DeadlineExceeded extends HttpTimeoutException {
        private final Duration deadline;

        public DeadlineExceeded(Duration deadline) {
            super("no complete answer within " + Durations.format(deadline) + " (the whole answer, headers and body)");
            this.deadline = deadline;
        }

        public Duration deadline() {
            return deadline;
        }
    }

    /** The body was larger than the cap: reading stopped there, nothing of it is used. */
    public static final class TooLarge extends IOException {
        public TooLarge(long maxBytes) {
            super("the answer is larger than " + maxBytes + " bytes; not read further");
        }
    }

    /**
     * Sends {@code request} and returns its answer, or fails once {@code deadline} has passed.
     *
     * @throws DeadlineExceeded  the whole answer was not there within {@code deadline}
     * @throws TooLarge          the body exceeded {@code maxBytes}
     * @throws IOException       any other failure of the exchange (refused, reset, TLS, ...)
     * @throws InterruptedException the calling thread was interrupted; the exchange is cancelled
     */
    public static HttpResponse<String> send(HttpClient client, HttpRequest request, Duration deadline, long maxBytes)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<String>> answer = sendAsync(client, request, deadline, maxBytes);
        try {
            return answer.get();
        } catch (InterruptedException e) {
            answer.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        }
    }

    /**
     * As {@link #send}, without blocking: the future completes with the answer, or exceptionally with
     * {@link DeadlineExceeded}, {@link TooLarge} or the exchange's own failure. At the deadline the exchange itself is
     * cancelled, so a trickling server does not keep a connection (and the client's threads) busy after the caller
     * gave up. Cancelling the returned future cancels the exchange too.
     */
    public static CompletableFuture<HttpResponse<String>> sendAsync(HttpClient client, HttpRequest request,
                                                                    Duration deadline, long maxBytes) {
        CompletableFuture<HttpResponse<String>> exchange = client.sendAsync(request, capped(maxBytes));
        CompletableFuture<HttpResponse<String>> result = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                exchange.cancel(true);
                return super.cancel(mayInterruptIfRunning);
            }
        };
        ScheduledFuture<?> timer = TIMER.schedule(() -> {
            if (result.completeExceptionally(new DeadlineExceeded(deadline))) {
                exchange.cancel(true);
            }
        }, Math.max(1, deadline.toMillis()), TimeUnit.MILLISECONDS);
        exchange.whenComplete((r, e) -> {
            timer.cancel(false);
            if (e == null) {
                result.complete(r);
            } else {
                result.completeExceptionally(unwrap(e));
            }
        });
        return result;
    }

    /** The failure underneath the future's wrappers. */
    public static Throwable unwrap(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof CancellationException) {
            return new IOException("cancelled", cause);
        }
        return cause;
    }

    /** The body as UTF-8 text, at most {@code maxBytes}: the subscription is cancelled at the first byte over. */
    static HttpResponse.BodyHandler<String> capped(long maxBytes) {
        return info -> new Capped(maxBytes);
    }

    private static final class Capped implements HttpResponse.BodySubscriber<String> {
        private final long maxBytes;
        private final CompletableFuture<String> body = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        Capped(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public CompletionStage<String> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer b : items) {
                if (bytes.size() + (long) b.remaining() > maxBytes) {
                    subscription.cancel();
                    body.completeExceptionally(new TooLarge(maxBytes));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable throwable) {
            body.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            body.complete(bytes.toString(StandardCharsets.UTF_8));
        }
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nodegate-answer-deadline");
            t.setDaemon(true);
            return t;
        });
        exec.setRemoveOnCancelPolicy(true);
        return exec;
    }
}
