import javax.persistence.Entity;
import javax.persistence.GeneratedValue;
import javax.persistence.GenerationType;
import javax.persistence.Id;
import javax.persistence.Table;

@Entity
@Table(name = "events")
public class Event {
    // A snowflake column maps as a Long: Hibernate reads it with getLong.
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String note;
}
