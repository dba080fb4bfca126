# The image `nodegate install --image` runs: the nodegate CLI on a JRE, started as `nodegate watch`.
# Build and push (nothing here has been built: this machine reaches no registry):
#   docker build -t registry.example.com/ops/nodegate:0.1.0 . && docker push registry.example.com/ops/nodegate:0.1.0
# (podman, buildah and nerdctl take the same arguments.)

# ---- build: the shaded jar; tests are neither compiled nor run here (run bin/test before you build an image) ----
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY src ./src
RUN mvn -B -q -Dmaven.test.skip=true package

# ---- run: a JRE and the jar, nothing else ----
FROM eclipse-temurin:17-jre
COPY --from=build /src/target/nodegate.jar /opt/nodegate/nodegate.jar
# A fixed non-root uid/gid: the Deployment from `nodegate install` sets runAsNonRoot and runAsUser to the same
# number, and the root filesystem is read-only (only /tmp is an emptyDir).
USER 65532:65532
EXPOSE 9470
# Measured with the watch at 5,000 nodes (bench/watch.sh, bench/RESULTS.md): the serial collector (one GC thread,
# no concurrent marking: the least CPU and native memory on a 1-core pod) and a heap of half the container's memory
# limit (256 MiB under the Deployment's 512 MiB: twice the ~120 MiB live set, room for a re-list; the other half is
# metaspace, code cache, threads). Die on OOM so the kubelet restarts the pod instead of a half-alive JVM; no
# hsperfdata files on the read-only filesystem. bench/watch.sh runs the watch with these same flags.
ENTRYPOINT ["java", "-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData", "-jar", "/opt/nodegate/nodegate.jar"]
CMD ["watch"]
