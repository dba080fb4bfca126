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
# The watch's JVM flags (deploy/InstallBundle.WATCH_JVM_FLAGS, which the Deployment's command repeats; DockerfileTest
# keeps the two equal): the serial collector (one GC thread, no concurrent marking: the least CPU and native memory on
# a 1-core pod), a heap of 50 % of the container's memory limit and a young generation of a sixth of it, chosen for
# the Deployment's 512 MiB and measured at 20,000 nodes (bench/watch.sh runs these same flags; bench/RESULTS.md).
# Die on OOM so the kubelet restarts the pod instead of a half-alive JVM; no hsperfdata files on the read-only
# filesystem. Sizing for a cluster's node count: docs/in-cluster.md.
ENTRYPOINT ["java", "-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50", "-XX:NewRatio=5", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData", "-jar", "/opt/nodegate/nodegate.jar"]
CMD ["watch"]
