// The entities (JPA annotations, as Hibernate 3.6 reads them).
import javax.persistence.Entity;
import javax.persistence.GeneratedValue;
import javax.persistence.GenerationType;
import javax.persistence.Id;
import javax.persistence.Table;

@Entity
@Table(name = "orders")
public class Order {
    // The database fills the key (DEFAULT snowflake_nextval()): IDENTITY, and
    // hibernate.jdbc.use_get_generated_keys=true to read it back.
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String note;
}
