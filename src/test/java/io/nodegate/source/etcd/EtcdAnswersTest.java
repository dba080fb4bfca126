package io.nodegate.source.etcd;

import io.nodegate.model.EtcdStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EtcdAnswersTest {

    // as etcd 3.4.23 answered on the JSON gateway (ids > 2^63 arrive as strings)
    static final String MEMBERS = "{\"header\":{\"cluster_id\":\"15118495548433857066\",\"member_id\":\"13668033151171901709\","
            + "\"raft_term\":\"2\"},\"members\":[{\"ID\":\"13668033151171901709\",\"name\":\"a\",\"peerURLs\":"
            + "[\"http://127.0.0.1:23801\"],\"clientURLs\":[\"http://127.0.0.1:23791\"]},{\"ID\":\"42\",\"peerURLs\":"
            + "[\"http://127.0.0.1:23802\"],\"isLearner\":true}]}";
    static final String STATUS = "{\"header\":{\"cluster_id\":\"15118495548433857066\",\"member_id\":\"13668033151171901709\","
            + "\"revision\":\"1\",\"raft_term\":\"2\"},\"version\":\"3.4.23\",\"dbSize\":\"20480\",\"leader\":"
            + "\"13668033151171901709\",\"raftIndex\":\"4\",\"raftTerm\":\"2\",\"raftAppliedIndex\":\"4\",\"dbSizeInUse\":\"16384\"}";

    @Test
    void parsesMemberListWithUint64IdsAndOmittedFalse() throws Exception {
        EtcdAnswers.MemberList list = EtcdAnswers.memberList(MEMBERS);
        assertThat(Long.toUnsignedString(list.clusterId())).isEqualTo("15118495548433857066");
        assertThat(list.members()).hasSize(2);
        assertThat(Long.toHexString(list.members().get(0).id())).isEqualTo("bdae9bbc11dd390d");
        assertThat(list.members().get(0).learner()).isFalse();
        assertThat(list.members().get(1).learner()).isTrue();
        assertThat(list.members().get(1).name()).isEmpty();
        assertThat(list.members().get(1).clientUrls()).isEmpty();
    }

    @Test
    void parsesStatus() throws Exception {
        EtcdStatus s = EtcdAnswers.status(STATUS);
        assertThat(s.memberId()).isEqualTo(s.leader());
        assertThat(s.raftTerm()).isEqualTo(2);
        assertThat(s.raftIndex()).isEqualTo(4);
        assertThat(s.dbSize()).isEqualTo(20480);
        assertThat(s.version()).isEqualTo("3.4.23");
        assertThat(s.learner()).isFalse();
    }

    @Test
    void statusWithoutLeaderMeansNoLeader() throws Exception {
        EtcdStatus s = EtcdAnswers.status(STATUS.replace("\"leader\":\"13668033151171901709\",", ""));
        assertThat(s.leader()).isZero();
    }

    @Test
    void brokenAnswersNameWhatIsWrong() {
        assertThatThrownBy(() -> EtcdAnswers.status("<html>proxy error</html>"))
                .isInstanceOf(EtcdAnswers.MalformedAnswer.class).hasMessageContaining("not JSON").hasMessageContaining("proxy error");
        assertThatThrownBy(() -> EtcdAnswers.status("{\"version\":\"3.4\"}"))
                .hasMessageContaining("status header lacks 'cluster_id'");
        assertThatThrownBy(() -> EtcdAnswers.memberList("{\"header\":{\"cluster_id\":\"1\"}}"))
                .hasMessageContaining("no 'members' array");
        assertThatThrownBy(() -> EtcdAnswers.memberList("{\"header\":{\"cluster_id\":\"x1\"},\"members\":[]}"))
                .hasMessageContaining("not an unsigned integer");
        assertThatThrownBy(() -> EtcdAnswers.memberList("[]")).hasMessageContaining("not a JSON object");
    }

    @Test
    void gatewayErrorMessageIsExtracted() {
        assertThat(EtcdAnswers.gatewayError("{\"error\":\"etcdserver: request timed out\",\"code\":14,"
                + "\"message\":\"etcdserver: request timed out\"}")).isEqualTo("etcdserver: request timed out");
        assertThat(EtcdAnswers.gatewayError("plain text")).isNull();
    }
}
