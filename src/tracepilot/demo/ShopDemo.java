import java.util.ArrayList;
import java.util.List;

/**
 * A tiny shop: customers place orders, a calculator prices them, and one customer's missing
 * address eventually crashes the run with a NullPointerException. Made to be stepped through.
 */
public class ShopDemo {

    record Item(String name, int priceCents, int quantity) {
        int totalCents() {
            return priceCents * quantity; // @demo:item-total
        }
    }

    record Address(String street, String city) {}

    static class Customer {
        final String name;
        final Address address; // null for a customer who never filled it in
        final boolean member;

        Customer(String name, Address address, boolean member) {
            this.name = name;
            this.address = address;
            this.member = member;
        }
    }

    static class Order {
        final int id;
        final Customer customer;
        final List<Item> items = new ArrayList<>();
        String note = "Leave the parcel with the neighbour at number 12 if nobody answers; ring twice, "
                + "the bell is quiet and the dog barks at couriers."; // wider than any pane: Enter shows it whole

        Order(int id, Customer customer) {
            this.id = id;
            this.customer = customer;
        }

        Order add(String name, int priceCents, int quantity) {
            items.add(new Item(name, priceCents, quantity));
            return this;
        }
    }

    static class PriceCalculator {
        int ordersPriced = 0;

        int subtotal(Order order) {
            int sum = 0;
            for (Item item : order.items) {
                sum += item.totalCents(); // @demo:subtotal-loop
            }
            return sum;
        }

        int discount(Order order, int subtotal) {
            int percent = order.customer.member ? 10 : 0; // @demo:discount
            if (subtotal > 10_000) {
                percent += 5;
            }
            return subtotal * percent / 100;
        }

        int total(Order order) {
            int subtotal = subtotal(order);
            int discount = discount(order, subtotal);
            ordersPriced++;
            return subtotal - discount; // @demo:total
        }
    }

    static String shippingLabel(Customer customer) {
        return customer.name + ", " + customer.address.city(); // @demo:npe
    }

    static String money(int cents) {
        return String.format("%d.%02d", cents / 100, cents % 100);
    }

    public static void main(String[] args) throws InterruptedException {
        Customer ada = new Customer("Ada", new Address("1 Loop Rd", "Lisbon"), true);
        Customer bob = new Customer("Bob", new Address("2 Stack St", "Oslo"), false);
        Customer cy = new Customer("Cy", null, true);

        List<Order> orders = List.of(
                new Order(1, ada).add("keyboard", 4_999, 1).add("cable", 799, 2),
                new Order(2, bob).add("monitor", 18_900, 1),
                new Order(3, ada).add("mouse", 2_450, 1),
                new Order(4, cy).add("laptop stand", 3_900, 1).add("lamp", 2_100, 2));

        PriceCalculator calculator = new PriceCalculator();
        System.out.println("ShopDemo: processing " + orders.size() + " orders");
        for (Order order : orders) {
            int total = calculator.total(order); // @demo:process
            String label = shippingLabel(order.customer); // @demo:ship
            System.out.println("order #" + order.id + " -> " + money(total) + " to " + label);
            Thread.sleep(1_500); // time to pause between orders
        }
        System.out.println("all orders shipped"); // never reached: Cy has no address
    }
}
